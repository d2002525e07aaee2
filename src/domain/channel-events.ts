import { presentAuth } from '../presenters/auth.js';
import { SYSTEM_NOTICES, type ChannelV1EventType, type SystemNoticeMessage } from '../../schemas/events/channel-v1.js';
import { qrPngBase64 } from '../lib/qr-image.js';
import type { AuthSignalItem } from './provider-facts.js';
import type { ChannelRow } from '../store/channels.js';
import type { Store } from '../store/store.js';
import type { EventRecord } from '../streams/catalog.js';
import { recordEvent, writeEvent } from './events.js';

/**
 * Appends a v1 channel payload `{id, entity: 'channel', type, company_id, channel_id, channel_type,
 * created_at, ...fields}` (schemas/events/channel-v1.ts), named `channel.<type>` (`channel.state`
 * for `system` notices). Call it inside the transaction of the change it reports.
 */
export function recordV1ChannelEvent(
  store: Store,
  channel: Pick<ChannelRow, 'id' | 'company_id' | 'provider'>,
  type: ChannelV1EventType,
  fields: Record<string, unknown>,
  now = new Date(),
): EventRecord {
  const name = type === 'system' ? 'channel.state' : `channel.${type}`;
  return writeEvent(store.outbox, channel.company_id, name, now, (id, createdAt) => ({
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
 * Appends a v1 `system` notice about a channel's session (the documented `message` and its
 * `severity`, `date` as `2017-11-11 12:45:53 UTC` and unix seconds), named `channel.state`.
 */
export function recordSystemNotice(
  store: Store,
  channel: Pick<ChannelRow, 'id' | 'company_id' | 'provider'>,
  message: SystemNoticeMessage,
  reason: string | null,
  at: Date,
  now = new Date(),
): EventRecord {
  return recordV1ChannelEvent(
    store,
    channel,
    'system',
    {
      severity: SYSTEM_NOTICES[message],
      data: {
        message,
        date: `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`,
        date_timestamp: unixSeconds(at),
        timestamp: unixSeconds(now),
        details: { entity: 'channel', entity_id: channel.id },
        ...(reason === null ? {} : { reason }),
      },
    },
    now,
  );
}

/**
 * Finishes the v1 job of a send (if the send was one): `delivered` when the provider took the
 * message, `not_delivered` with its reason otherwise, and appends the v1 job result `{id, type:
 * 'job', event: 'executed', company_id, created_at, data: {id, result, message_id, external_id,
 * date, reason?}}` (schemas/events/job-v1.ts), named `job.executed`, in the transaction that
 * recorded the outcome. A job finished already (a repeated outcome) writes nothing. Answers the
 * number of events written.
 */
export function finishV1Job(
  store: Store,
  sendJobId: string,
  outcome: { sent: true; externalId: string | null } | { sent: false; reason: string },
  now = new Date(),
): number {
  const job = store.v1Jobs.findBySendJob(sendJobId);
  if (job === undefined) return 0;
  const finished = store.v1Jobs.finish(job.id, outcome.sent ? 'delivered' : 'not_delivered', outcome.sent ? null : outcome.reason, now.getTime());
  if (finished === undefined) return 0;
  const data = outcome.sent
    ? { id: job.id, result: 'DELIVERED', message_id: job.message_id, external_id: outcome.externalId }
    : { id: job.id, result: 'NOT DELIVERED', message_id: job.message_id, external_id: null, reason: outcome.reason };
  writeEvent(store.outbox, job.company_id, 'job.executed', now, (id, createdAt) => ({
    id,
    type: 'job',
    event: 'executed',
    company_id: job.company_id,
    created_at: createdAt,
    data: { ...data, date: unixSeconds(now) },
  }));
  return 1;
}

function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

/**
 * Writes `auth.update` carrying the signal (`qr` as a PNG data URL, `code`, `pages` or
 * `oauth_provider_url` beside the auth object) and, for channels created through v1, the matching v1
 * payload `{type: 'qr_code' | 'code' | 'pages', event: 'new', data}` (the QR as a base64 PNG; OAuth
 * has no v1 payload). Nothing is stored: the connector sends a fresh one when it changes.
 * Answers the number of events written.
 */
export function recordAuthSignal(store: Store, channel: ChannelRow, signal: AuthSignalItem, v1: boolean, now = new Date()): number {
  const png = signal.kind === 'qr' ? qrPngBase64(signal.qr) : undefined;
  const extra =
    signal.kind === 'qr'
      ? { qr: `data:image/png;base64,${png!}` }
      : signal.kind === 'code'
        ? { code: signal.code }
        : signal.kind === 'pages'
          ? { pages: signal.pages }
          : { oauth_provider_url: signal.oauthProviderUrl };
  recordEvent(store.outbox, channel.company_id, 'auth', 'update', { ...presentAuth(channel), ...extra }, now);
  if (!v1 || signal.kind === 'oauth') return 1;
  const data = signal.kind === 'qr' ? png : signal.kind === 'code' ? signal.code : signal.pages;
  recordV1ChannelEvent(store, channel, signal.kind === 'qr' ? 'qr_code' : signal.kind, { event: 'new', data }, now);
  return 2;
}

/**
 * Moves a channel to the state its connector reports and writes `auth.update`, plus for v1 channels
 * the v1 `system` notice: `authorized` when it got connected, `disabled` when its session ended.
 * A report of the state it already has changes nothing and writes nothing. Answers the channel as
 * it is now and the number of events written.
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
  recordSystemNotice(store, moved, state === 'enabled' ? 'authorized' : 'disabled', reason, now, now);
  return { channel: moved, events: 2 };
}
