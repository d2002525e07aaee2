import { authObjectOf } from './auth-object.js';
import { SYSTEM_NOTICES, type ChannelV1EventType, type SystemNoticeMessage } from '../../schemas/events/channel-v1.js';
import { qrPngBase64 } from '../lib/qr-image.js';
import { unixSeconds, v1DateTime } from '../lib/time.js';
import type { AuthSignalItem } from './provider-facts.js';
import type { ChannelRow } from '../store/resources/channels.js';
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
        date: v1DateTime(at.getTime()),
        date_timestamp: unixSeconds(at.getTime()),
        timestamp: unixSeconds(now.getTime()),
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
  const finished = store.v1Jobs.finish(
    job.id,
    outcome.sent ? 'delivered' : 'not_delivered',
    outcome.sent ? null : outcome.reason,
    now.getTime(),
  );
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
    data: { ...data, date: unixSeconds(now.getTime()) },
  }));
  return 1;
}

/**
 * Writes `auth.update` carrying the signal and, for channels created through v1, the matching v1
 * payload `{type: 'qr_code' | 'code' | 'pages', event: 'new', data}` (OAuth and a page's connection
 * have none). A QR travels as a PNG: a data URL beside the auth object, base64 in the v1 payload.
 * A QR, code or OAuth address is not stored (the connector sends a fresh one when it changes); a
 * page list replaces the auth's stored pages (the object's `pages`), and each page shows its own
 * OAuth address when the provider connects pages by OAuth. Answers the number of events written.
 */
export function recordAuthSignal(
  store: Store,
  channel: ChannelRow,
  signal: AuthSignalItem,
  v1: boolean,
  now = new Date(),
): number {
  const png = signal.kind === 'qr' ? qrPngBase64(signal.qr) : undefined;
  let extra: Record<string, unknown> = {};
  if (signal.kind === 'qr') extra = { qr: `data:image/png;base64,${png!}` };
  else if (signal.kind === 'code') extra = { code: signal.code };
  else if (signal.kind === 'oauth') extra = { oauth_provider_url: signal.oauthProviderUrl };
  else if (signal.kind === 'page_enabled') store.authPages.enable(channel.id, signal.pageId, now.getTime());
  else store.authPages.replaceListed(channel, signal.pages, now.getTime());
  const object = authObjectOf(store, channel);
  if (signal.kind === 'pages' && signal.pages.some((p) => p.oauthProviderUrl !== undefined) && object.pages !== null) {
    const urls = new Map(signal.pages.map((p) => [p.id, p.oauthProviderUrl]));
    extra = {
      pages: object.pages.map((page) => ({
        ...page,
        ...(urls.get(page.external_id) === undefined ? {} : { oauth_provider_url: urls.get(page.external_id) }),
      })),
    };
  }
  recordEvent(store.outbox, channel.company_id, 'auth', 'update', { ...object, ...extra }, now);
  if (!v1 || signal.kind === 'oauth' || signal.kind === 'page_enabled') return 1;
  const data =
    signal.kind === 'qr'
      ? png
      : signal.kind === 'code'
        ? signal.code
        : signal.pages.map(({ id, name, username }) => ({ id, name, ...(username === undefined ? {} : { username }) }));
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
  account: { phone?: string; username?: string } = {},
): { channel: ChannelRow; events: number } {
  const known = withAccount(store, channel, account, now);
  if (known.state === state) return { channel: known, events: 0 };
  const moved = store.channels.setState(known.id, known.state, state, now.getTime());
  if (moved === undefined) return { channel: known, events: 0 };
  recordEvent(store.outbox, moved.company_id, 'auth', 'update', authObjectOf(store, moved), now);
  if (!v1) return { channel: moved, events: 1 };
  recordSystemNotice(store, moved, state === 'enabled' ? 'authorized' : 'disabled', reason, now, now);
  return { channel: moved, events: 2 };
}

/** Keeps the account's phone and user name the provider reported (the auth's phone_number and username). */
function withAccount(
  store: Store,
  channel: ChannelRow,
  account: { phone?: string; username?: string },
  now: Date,
): ChannelRow {
  const changes: Record<string, string> = {};
  if (account.phone !== undefined && account.phone !== channel.settings.account_phone)
    changes.account_phone = account.phone.replace(/^\+/, '');
  if (account.username !== undefined && account.username !== channel.settings.account_username)
    changes.account_username = account.username;
  if (Object.keys(changes).length === 0) return channel;
  return (
    store.channels.updateConnection(
      channel.id,
      { ...channel.settings, ...changes },
      channel.credentials,
      now.getTime(),
    ) ?? channel
  );
}
