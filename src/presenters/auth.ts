import type { FromSchema } from 'json-schema-to-ts';
import type { authObject, ConfirmationMethod } from '../../schemas/objects/auth.js';
import type { Provider } from '../../schemas/v1/channels.js';
import { toIso } from '../lib/time.js';
import type { AuthPageRow } from '../store/resources/auth-pages.js';
import type { ChannelRow } from '../store/resources/channels.js';

/** The auth object (v2), as schemas/objects/auth.ts describes it. */
export type AuthObject = FromSchema<typeof authObject>;

/**
 * Settings an auth object shows. An allow-list, not a deny-list: whatever else a channel's settings
 * hold (fields a client sent beside the variant's own) is never shown, and credentials live apart
 * from settings anyway.
 */
const SHOWN_SETTINGS = [
  'phone',
  'via_qr_code',
  'sync_messages_from',
  'hosting_type',
  'subtype',
  'vendor_channel_id',
  'vendor_client_id',
  'account_name',
] as const;

/**
 * How an auth of this provider and settings is confirmed: `qr` (scanned on the phone), a
 * `pairing_code` (shown by confirm, typed into the phone app), a `code` the provider sends to
 * the user, who passes it to enable, or `oauth` (created by provider alone: the user authorizes at
 * the provider's address). null for auths connected by a credential.
 */
export function confirmationMethod(auth: Pick<ChannelRow, 'provider' | 'settings'>): ConfirmationMethod | null {
  if (auth.settings.auth_flow === 'oauth') return 'oauth';
  const byPhone = typeof auth.settings.phone === 'string';
  switch (auth.provider) {
    case 'chat_d':
      return 'qr';
    case 'chat_a':
      return byPhone ? 'pairing_code' : 'qr';
    case 'chat_b_personal':
      return byPhone ? 'code' : 'qr';
    case 'social_c':
      return 'code';
    default:
      return null;
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The auth object (v2) of a channel row and its pages: never a credential. Also the `object` of
 * auth events. `phone_number` is the phone the auth was created with or the one the provider
 * reported for the account, `username` the account's name the provider reported.
 */
export function presentAuth(row: ChannelRow, pages: readonly AuthPageRow[]): AuthObject {
  const settings: Record<string, unknown> = {};
  for (const key of SHOWN_SETTINGS) if (row.settings[key] !== undefined) settings[key] = row.settings[key];
  return {
    id: row.id,
    company_id: row.company_id,
    // Stored as validated at creation (a provider code, the variant's own settings): the row's types are wider than its values.
    provider: row.provider as Provider,
    state: row.state,
    phone_number: text(row.settings.phone) ?? text(row.settings.account_phone),
    username: text(row.settings.account_username),
    confirmation: confirmationMethod(row),
    settings: settings,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    sync_messages_at: text(row.settings.sync_messages_from),
    pages: pages.length === 0 ? null : pages.map(presentAuthPage),
  };
}

/** A page of an auth (the hosted service's pages object). */
export function presentAuthPage(page: AuthPageRow): NonNullable<AuthObject['pages']>[number] {
  return {
    id: page.id,
    auth_id: page.channel_id,
    company_id: page.company_id,
    external_id: page.external_id,
    name: page.name,
    enabled: page.enabled === 1,
  };
}
