import { presentAuth } from '../presenters/auth.js';
import type { ChannelV1EventType } from '../../schemas/events/channel-v1.js';
import type { AuthSignalItem } from './provider-facts.js';
import type { ChannelRow } from '../store/channels.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../streams/catalog.js';
import { recordEvent, writeEvent } from './events.js';

/**
 * Appends a v1 channel payload `{id, entity: 'channel', type, company_id, channel_id,
 * channel_type, created_at, ...fields}` (schemas/events/channel-v1.ts), named `channel.<type>`.
 * Call it inside the transaction of the change it reports.
 */
export function recordV1ChannelEvent(
  store: Store,
  channel: Pick<ChannelRow, 'id' | 'company_id' | 'provider'>,
  type: ChannelV1EventType,
  fields: Record<string, unknown>,
  now = new Date(),
): EventRecord {
  return writeEvent(store.outbox, channel.company_id, `channel.${type}`, now, (id, createdAt) => ({
    id,
    entity: 'channel',
    type,
    company_id: channel.company_id,
    channel_id: channel.id,
    channel_type: channel.provider,
    created_at: createdAt,
    ...fields,
  }));
}

/**
 * Appends the v1 job result `{id, type: 'job', event: 'executed', company_id, created_at, data}`
 * (schemas/events/job-v1.ts), named `job.executed`, inside the transaction that recorded the outcome.
 */
export function recordJobExecuted(
  store: Store,
  companyId: number,
  data: { id: string; result: 'DELIVERED' | 'NOT DELIVERED'; message_id: number; external_id: string | null; reason?: string },
  now = new Date(),
): EventRecord {
  return writeEvent(store.outbox, companyId, 'job.executed', now, (id, createdAt) => ({
    id,
    type: 'job',
    event: 'executed',
    company_id: companyId,
    created_at: createdAt,
    data: { ...data, date: createdAt },
  }));
}

/**
 * Writes `auth.update` carrying the signal (`qr`, `code`, `pages` or `oauth_provider_url` beside the
 * auth object) and, for channels created through v1, the matching v1 payload (`qr_code`, `code`,
 * `pages`; OAuth has no v1 payload). Nothing is stored: the connector sends a fresh one when it changes.
 * Answers the number of events written.
 */
export function recordAuthSignal(store: Store, channel: ChannelRow, signal: AuthSignalItem, v1: boolean, now = new Date()): number {
  const extra =
    signal.kind === 'qr'
      ? { qr: signal.qr }
      : signal.kind === 'code'
        ? { code: signal.code }
        : signal.kind === 'pages'
          ? { pages: signal.pages }
          : { oauth_provider_url: signal.oauthProviderUrl };
  recordEvent(store.outbox, channel.company_id, 'auth', 'update', { ...presentAuth(channel), ...extra }, now);
  if (!v1 || signal.kind === 'oauth') return 1;
  recordV1ChannelEvent(store, channel, signal.kind === 'qr' ? 'qr_code' : signal.kind, extra, now);
  return 2;
}

/**
 * Moves a channel to the state its connector reports and writes `auth.update` (plus the v1 `state`
 * payload for v1 channels). A report of the state it already has changes nothing and writes nothing.
 * Answers the channel as it is now and the number of events written.
 */
export function applyChannelState(
  store: Store,
  channel: ChannelRow,
  state: 'enabled' | 'disabled',
  reason: string | null,
  v1: boolean,
  now = new Date(),
): { channel: ChannelRow; events: number } {
  if (channel.state === state) return { channel, events: 0 };
  const moved = store.channels.setState(channel.id, channel.state, state, now.getTime());
  if (moved === undefined) return { channel, events: 0 };
  recordEvent(store.outbox, moved.company_id, 'auth', 'update', presentAuth(moved), now);
  if (!v1) return { channel: moved, events: 1 };
  recordV1ChannelEvent(store, moved, 'state', { state, reason }, now);
  return { channel: moved, events: 2 };
}
