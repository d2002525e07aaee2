import { authObjectOf } from './auth-object.js';
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
 * Writes `auth.update` carrying the signal and, for channels created through v1, the matching v1
 * payload (`qr_code`, `code`, `pages`; OAuth and a page's connection have none). A QR, code or OAuth
 * address travels beside the auth object and is not stored (the connector sends a fresh one when it
 * changes); a page list replaces the auth's stored pages (the object's `pages`), and each page shows
 * its own OAuth address when the provider connects pages by OAuth. Answers the number of events written.
 */
export function recordAuthSignal(store: Store, channel: ChannelRow, signal: AuthSignalItem, v1: boolean, now = new Date()): number {
  let extra: Record<string, unknown> = {};
  if (signal.kind === 'qr') extra = { qr: signal.qr };
  else if (signal.kind === 'code') extra = { code: signal.code };
  else if (signal.kind === 'oauth') extra = { oauth_provider_url: signal.oauthProviderUrl };
  else if (signal.kind === 'page_enabled') store.authPages.enable(channel.id, signal.pageId, now.getTime());
  else store.authPages.replaceListed(channel, signal.pages, now.getTime());
  const object = authObjectOf(store, channel);
  if (signal.kind === 'pages' && signal.pages.some((p) => p.oauthProviderUrl !== undefined) && object.pages !== null) {
    const urls = new Map(signal.pages.map((p) => [p.id, p.oauthProviderUrl]));
    extra = { pages: object.pages.map((page) => ({ ...page, ...(urls.get(page.external_id) === undefined ? {} : { oauth_provider_url: urls.get(page.external_id) }) })) };
  }
  recordEvent(store.outbox, channel.company_id, 'auth', 'update', { ...object, ...extra }, now);
  if (!v1 || signal.kind === 'oauth' || signal.kind === 'page_enabled') return 1;
  const payload = signal.kind === 'qr' ? { qr: signal.qr } : signal.kind === 'code' ? { code: signal.code } : { pages: signal.pages.map(({ id, name, username }) => ({ id, name, ...(username === undefined ? {} : { username }) })) };
  recordV1ChannelEvent(store, channel, signal.kind === 'qr' ? 'qr_code' : signal.kind, payload, now);
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
  account: { phone?: string; username?: string } = {},
): { channel: ChannelRow; events: number } {
  const known = withAccount(store, channel, account, now);
  if (known.state === state) return { channel: known, events: 0 };
  const moved = store.channels.setState(known.id, known.state, state, now.getTime());
  if (moved === undefined) return { channel: known, events: 0 };
  recordEvent(store.outbox, moved.company_id, 'auth', 'update', authObjectOf(store, moved), now);
  if (!v1) return { channel: moved, events: 1 };
  recordV1ChannelEvent(store, moved, 'state', { state, reason }, now);
  return { channel: moved, events: 2 };
}

/** Keeps the account's phone and user name the provider reported (the auth's phone_number and username). */
function withAccount(store: Store, channel: ChannelRow, account: { phone?: string; username?: string }, now: Date): ChannelRow {
  const changes: Record<string, string> = {};
  if (account.phone !== undefined && account.phone !== channel.settings.account_phone) changes.account_phone = account.phone.replace(/^\+/, '');
  if (account.username !== undefined && account.username !== channel.settings.account_username) changes.account_username = account.username;
  if (Object.keys(changes).length === 0) return channel;
  return store.channels.updateConnection(channel.id, { ...channel.settings, ...changes }, channel.credentials, now.getTime()) ?? channel;
}
