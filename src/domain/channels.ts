import { randomBytes } from 'node:crypto';
import { channelCreateBodies, channelUpdateBodies, type Provider } from '../../schemas/v1/channels.js';
import type { SyncPeriod } from '../../schemas/v2/auths.js';
import {
  OAUTH_PROVIDERS as OAUTH_LIST,
  SESSION_PROVIDERS as SESSION_LIST,
  SYNC_PROVIDERS as SYNC_LIST,
} from '../../schemas/provider-capabilities.js';
import { ValidationFailed } from '../errors/errors.js';
import type { ChannelState } from '../store/resources/channels.js';
import { oneMonthBefore, parseTimestamp } from '../lib/time.js';

/** Parameters that are secrets: kept in the channel's credentials, never presented or logged. */
const CREDENTIAL_FIELDS = new Set(['token', 'password', 'login', 'data', 'oauth_state']);

/** Providers whose account is connected by a session (QR code or a code), not by a credential. */
const SESSION_PROVIDERS = new Set<Provider>(SESSION_LIST);

/** Providers whose auths can synchronize message history (sync_period), per the create-auth page. */
export const SYNC_PROVIDERS = new Set<Provider>(SYNC_LIST);

/** Providers connected by OAuth when an auth is created with `provider` alone (the confirm-auth page). */
export const OAUTH_PROVIDERS = new Set<Provider>(OAUTH_LIST);

export interface Connection {
  state: ChannelState;
  settings: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

/**
 * The stored form of a validated create request: secrets apart from settings, and the initial
 * state. Session-based channels wait unconfirmed for the connector; credential-based ones start
 * enabled (the connector disables them if the provider refuses the credential).
 */
export function connectionFor(provider: Provider, input: Record<string, unknown>, now: Date): Connection {
  const { settings, credentials } = splitSecrets(onlyDeclared(input, channelCreateBodies[provider]), now);
  const state: ChannelState = SESSION_PROVIDERS.has(provider) ? 'unconfirmed' : 'enabled';
  return { state, settings, credentials };
}

/**
 * An auth connected by OAuth: unconfirmed until the user authorizes at the provider. `oauth_state`
 * is the secret the provider's redirect must bring back (a credential: never shown).
 */
export function oauthConnection(): Connection {
  return {
    state: 'unconfirmed',
    settings: { auth_flow: 'oauth' },
    credentials: { oauth_state: randomBytes(24).toString('base64url') },
  };
}

/**
 * sync_period: message history is synchronized from one day, week or calendar month before now,
 * kept as the connection's `sync_messages_from` (which the connector acts on). Refused for
 * providers without history sync and beside an explicit sync_messages_from.
 */
export function withSyncPeriod(
  provider: Provider,
  connection: Connection,
  period: SyncPeriod | undefined,
  now: Date,
): Connection {
  if (period === undefined) return connection;
  if (!SYNC_PROVIDERS.has(provider)) {
    throw ValidationFailed.field(
      'sync_period',
      `${provider} auths do not synchronize message history; sync_period is for ${[...SYNC_PROVIDERS].join(', ')}`,
    );
  }
  if (connection.settings.sync_messages_from !== undefined)
    throw ValidationFailed.field('sync_period', 'send sync_period or sync_messages_from, not both');
  const start =
    period === 'month' ? oneMonthBefore(now) : new Date(now.getTime() - (period === 'week' ? 7 : 1) * 86_400_000);
  return { ...connection, settings: { ...connection.settings, sync_messages_from: start.toISOString() } };
}

/** Merges a validated update request into a channel's stored connection. */
export function updatedConnection(
  current: { provider: string; settings: Record<string, unknown>; credentials: Record<string, unknown> },
  input: Record<string, unknown>,
  now: Date,
): Pick<Connection, 'settings' | 'credentials'> {
  const changes = splitSecrets(onlyDeclared(input, channelUpdateBodies[current.provider as Provider]), now);
  return {
    settings: { ...current.settings, ...changes.settings },
    credentials: { ...current.credentials, ...changes.credentials },
  };
}

/** The fields the provider's variant declares: anything else a client sends is never stored. */
function onlyDeclared(input: Record<string, unknown>, schema: { properties?: object }): Record<string, unknown> {
  const declared = new Set(Object.keys(schema.properties ?? {}));
  return Object.fromEntries(Object.entries(input).filter(([key]) => declared.has(key)));
}

function splitSecrets(input: Record<string, unknown>, now: Date): Pick<Connection, 'settings' | 'credentials'> {
  const settings: Record<string, unknown> = {};
  const credentials: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'provider' || value === undefined) continue;
    if (CREDENTIAL_FIELDS.has(key)) credentials[key] = value;
    else if (key === 'sync_messages_from') settings[key] = syncWindowStart(value as string | number, now).toISOString();
    else if (key === 'phone' && typeof value === 'string') settings[key] = value.replace(/^\+/, '');
    else settings[key] = value;
  }
  return { settings, credentials };
}

/**
 * sync_messages_from: only messages after it are synchronized, and it must not be older than one
 * month (contract section 4).
 */
function syncWindowStart(value: string | number, now: Date): Date {
  const start = parseTimestamp(value);
  if (start === undefined) {
    throw ValidationFailed.field(
      'sync_messages_from',
      'sync_messages_from must be an ISO 8601 timestamp or unix seconds',
    );
  }
  if (start < oneMonthBefore(now)) {
    throw ValidationFailed.field('sync_messages_from', 'sync_messages_from must not be older than one month');
  }
  return start;
}
