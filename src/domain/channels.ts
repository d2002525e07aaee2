import { channelCreateBodies, channelUpdateBodies, type Provider } from '../../schemas/v1/channels.js';
import { ValidationFailed } from '../errors/errors.js';
import type { ChannelState } from '../store/channels.js';
import { oneMonthBefore, parseTimestamp } from '../lib/time.js';

/** Parameters that are secrets: kept in the channel's credentials, never presented or logged. */
const CREDENTIAL_FIELDS = new Set(['token', 'password', 'login', 'data']);

/** Providers whose account is connected by a session (QR code or a code), not by a credential. */
const SESSION_PROVIDERS = new Set<Provider>(['chat_a', 'chat_d', 'chat_b_personal', 'social_c']);

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
    throw ValidationFailed.field('sync_messages_from', 'sync_messages_from must be an ISO 8601 timestamp or unix seconds');
  }
  if (start < oneMonthBefore(now)) {
    throw ValidationFailed.field('sync_messages_from', 'sync_messages_from must not be older than one month');
  }
  return start;
}
