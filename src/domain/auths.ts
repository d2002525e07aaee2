import { confirmationMethod } from '../presenters/auth.js';
import { authObjectOf } from './auth-object.js';
import type { ChannelApi } from '../store/resources/callbacks.js';
import type { ChannelRow, ChannelState, NewChannel } from '../store/resources/channels.js';
import { Conflict } from '../errors/errors.js';
import { isUniqueViolation } from '../store/engine/db.js';
import type { Store } from '../store/store.js';
import { generateCallbackSecrets } from './callback-secrets.js';
import { recordEvent } from './events.js';

/**
 * Creates a channel (v1) or auth (v2), its callback secrets and its `create` event in one
 * transaction; a second live one of a provider in the company is a 409. `api` records which
 * API created it: v1 channels also get the v1 channel payloads (docs/decisions.md, "Callbacks").
 */
export function createAuth(store: Store, channel: NewChannel, api: ChannelApi = 'v2'): ChannelRow {
  return store.transaction(() => {
    const now = Date.now();
    const row = insertOnePerProvider(store, channel, api, now);
    store.callbacks.create({ channelId: row.id, api, ...generateCallbackSecrets() }, now);
    recordEvent(store.outbox, row.company_id, 'auth', 'create', authObjectOf(store, row), new Date(now));
    return row;
  });
}

/** Deletes a channel (v1) or auth (v2) and writes its `delete` event in one transaction; undefined when it was already gone. */
export function deleteAuth(store: Store, channel: ChannelRow): ChannelRow | undefined {
  return store.transaction(() => {
    const now = Date.now();
    if (!store.channels.delete(channel.id, now)) return undefined;
    const removed: ChannelRow = { ...channel, state: 'disabled', updated_at: now, deleted_at: now };
    recordEvent(store.outbox, removed.company_id, 'auth', 'delete', authObjectOf(store, removed), new Date(now));
    return removed;
  });
}

export type AuthAction = 'confirm' | 'enable' | 'disable';

/** What an action does to an auth: a move to another state, or why it cannot. */
export type AuthPlan =
  | { kind: 'move'; to: ChannelState }
  /** 409: not possible in the auth's state. */
  | { kind: 'refuse'; reason: string }
  /** 422 on `code`: enable of an auth confirmed by a code needs it. */
  | { kind: 'needs_code'; reason: string }
  /** A valid step that the provider connector takes (confirm, code verification). */
  | { kind: 'needs_connector'; reason: string };

/**
 * The auth state machine (docs/decisions.md, "Auths"). `unconfirmed` auths are connected by the
 * provider connector (QR, pairing code, or a code passed to enable); `enabled` and `disabled` move
 * into each other by enable and disable. Deleted auths are not found at all.
 */
export function planAuthAction(
  auth: Pick<ChannelRow, 'id' | 'provider' | 'state' | 'settings'>,
  action: AuthAction,
  code?: string | number,
): AuthPlan {
  const name = `Auth ${auth.id}`;
  const method = confirmationMethod(auth);
  switch (action) {
    case 'confirm':
      if (auth.state === 'unconfirmed') {
        return {
          kind: 'needs_connector',
          reason: `Confirming a ${auth.provider} auth (${method}) is done by its provider connector.`,
        };
      }
      return {
        kind: 'refuse',
        reason:
          auth.state === 'enabled'
            ? `${name} is already confirmed and enabled.`
            : `${name} is disabled: enable it instead.`,
      };
    case 'enable':
      if (auth.state === 'disabled') return { kind: 'move', to: 'enabled' };
      if (auth.state === 'enabled') return { kind: 'refuse', reason: `${name} is already enabled.` };
      if (method === 'oauth') {
        return {
          kind: 'refuse',
          reason: `${name} is not authorized yet: open its oauth_provider_url (POST .../confirm answers a fresh one); it is enabled when the provider redirects back.`,
        };
      }
      if (method !== 'code') {
        return {
          kind: 'refuse',
          reason: `${name} is not confirmed yet: it is confirmed on the phone (${method}) after POST .../confirm, and enabled when the provider reports the connection.`,
        };
      }
      if (code === undefined)
        return {
          kind: 'needs_code',
          reason: `code is required: ${auth.provider} auths are enabled with the code the provider sent`,
        };
      return {
        kind: 'needs_connector',
        reason: `The code of a ${auth.provider} auth is verified by its provider connector.`,
      };
    case 'disable':
      if (auth.state === 'enabled') return { kind: 'move', to: 'disabled' };
      return {
        kind: 'refuse',
        reason:
          auth.state === 'disabled'
            ? `${name} is already disabled.`
            : `${name} is not connected yet, so there is nothing to disable: delete it to abandon the connection.`,
      };
  }
}

/** The channel row, or 409: a company has at most one live channel (auth) per provider. */
function insertOnePerProvider(store: Store, channel: NewChannel, api: ChannelApi, now: number): ChannelRow {
  try {
    return store.channels.insert(channel, now);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const noun = api === 'v1' ? 'channel' : 'auth';
    throw new Conflict(
      `Company ${channel.companyId} already has a ${channel.provider} ${noun}; only one live ${noun} per provider is allowed.`,
    );
  }
}
