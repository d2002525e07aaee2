import type { FromSchema } from 'json-schema-to-ts';
import type { authObject, ConfirmationMethod } from '../../schemas/objects/auth.js';
import type { Provider } from '../../schemas/v1/channels.js';
import { toIso } from '../lib/time.js';
import type { ChannelRow } from '../store/channels.js';

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
 * `pairing_code` (shown by confirm, typed into the phone app), or a `code` the provider sends to
 * the user, who passes it to enable. null for auths connected by a credential.
 */
export function confirmationMethod(auth: Pick<ChannelRow, 'provider' | 'settings'>): ConfirmationMethod | null {
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

/** The auth object (v2) of a channel row: never a credential. Also the `object` of auth events. */
export function presentAuth(row: ChannelRow): AuthObject {
  const settings: Record<string, unknown> = {};
  for (const key of SHOWN_SETTINGS) if (row.settings[key] !== undefined) settings[key] = row.settings[key];
  return {
    id: row.id,
    company_id: row.company_id,
    // Stored as validated at creation (a provider code, the variant's own settings): the row's types are wider than its values.
    provider: row.provider as Provider,
    state: row.state,
    confirmation: confirmationMethod(row),
    settings: settings as AuthObject['settings'],
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
