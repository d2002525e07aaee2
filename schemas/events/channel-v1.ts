import type { JSONSchema } from 'json-schema-to-ts';

/**
 * The v1 channel payloads (docs/design.md section 6), written for channels created through API v1
 * besides the v2 `auth.update`: `{id, entity: 'channel', type, company_id, channel_id,
 * channel_type, created_at, ...}` where `type` is `qr_code` (with `qr`), `code` (with `code`),
 * `state` (with `state` and `reason`) or `pages` (with `pages`). `channel_type` is the provider code.
 */
export const channelV1Event = {
  $id: 'events/channel-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'entity', 'type', 'company_id', 'channel_id', 'channel_type', 'created_at'],
  properties: {
    /** Stable across redeliveries: the `webhook-id` header. */
    id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
    entity: { const: 'channel' },
    type: { type: 'string', enum: ['qr_code', 'code', 'state', 'pages'] },
    company_id: { type: 'integer' },
    channel_id: { type: 'integer' },
    channel_type: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    qr: { type: 'string' },
    code: { type: 'string' },
    state: { type: 'string', enum: ['enabled', 'disabled'] },
    reason: { type: ['string', 'null'] },
    pages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: 'string' }, username: { type: 'string' } },
      },
    },
  },
  allOf: [
    { if: { properties: { type: { const: 'qr_code' } } }, then: { required: ['qr'] } },
    { if: { properties: { type: { const: 'code' } } }, then: { required: ['code'] } },
    { if: { properties: { type: { const: 'state' } } }, then: { required: ['state', 'reason'] } },
    { if: { properties: { type: { const: 'pages' } } }, then: { required: ['pages'] } },
  ],
} as const satisfies JSONSchema;

export type ChannelV1EventType = (typeof channelV1Event.properties.type.enum)[number];
