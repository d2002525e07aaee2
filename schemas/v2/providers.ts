import type { JSONSchema } from 'json-schema-to-ts';
import { PROVIDERS } from '../v1/channels.js';
import { PROVIDER_CAPABILITIES, SEND_KINDS } from '../provider-capabilities.js';

const feature = {
  type: 'object',
  additionalProperties: false,
  required: ['provider', 'gateway'],
  properties: {
    /** Whether the provider's own API has the feature. */
    provider: { type: 'boolean' },
    /** What the gateway carries of it today: both ways, only from the provider, only to it, or nothing yet. */
    gateway: { type: 'string', enum: ['both', 'incoming', 'outgoing', 'none'] },
  },
} as const;

/** One provider of GET /api/p2/providers. */
export const providerCapabilitiesObject = {
  $id: 'objects/provider-capabilities',
  type: 'object',
  additionalProperties: false,
  required: [
    'provider',
    'authentication',
    'history_sync',
    'writing_first',
    'templates',
    'groups',
    'reactions',
    'edits',
    'deletes',
    'read_receipts',
    'attachments',
  ],
  properties: {
    provider: { type: 'string', enum: PROVIDERS },
    authentication: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['qr', 'pairing_code', 'code', 'token', 'vendor_channel_id', 'login_password', 'oauth'],
      },
    },
    history_sync: { type: 'boolean' },
    writing_first: feature,
    templates: feature,
    groups: feature,
    reactions: feature,
    edits: feature,
    deletes: feature,
    read_receipts: feature,
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'max_bytes'],
        properties: {
          kind: { type: 'string', enum: SEND_KINDS },
          /** null: the provider states no limit the gateway knows; the operator's GATEWAY_ATTACHMENT_MAX_BYTES applies. */
          max_bytes: { type: ['integer', 'null'] },
        },
      },
    },
  },
} as const satisfies JSONSchema;

/** GET /api/p2/providers: every provider, in the table's order (schemas/provider-capabilities.ts). */
export const providerListResponse = {
  $id: 'v2/provider-list-response',
  type: 'object',
  additionalProperties: false,
  required: ['providers'],
  properties: { providers: { type: 'array', items: providerCapabilitiesObject } },
  examples: [{ providers: providerCatalog() }],
} as const satisfies JSONSchema;

/** The table as the API shows it: one object per provider, field names in the API's snake case. */
export function providerCatalog() {
  return PROVIDERS.map((provider) => {
    const c = PROVIDER_CAPABILITIES[provider];
    return {
      provider,
      authentication: [...c.authentication],
      history_sync: c.historySync,
      writing_first: { ...c.writingFirst },
      templates: { ...c.templates },
      groups: { ...c.groups },
      reactions: { ...c.reactions },
      edits: { ...c.edits },
      deletes: { ...c.deletes },
      read_receipts: { ...c.readReceipts },
      attachments: c.attachments.map((a) => ({ kind: a.kind, max_bytes: a.maxBytes })),
    };
  });
}
