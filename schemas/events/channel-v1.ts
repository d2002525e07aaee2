import type { JSONSchema } from 'json-schema-to-ts';
import { eventId, unixSeconds, v1Time } from './fields.js';

/** The documented texts of v1 `system` notices and their severity (pact-im/api-doc _includes/v1_webhooks.md). */
export const SYSTEM_NOTICES = {
  authorized: 'information',
  disabled: 'critical',
  'phone offline': 'critical',
  'phone online': 'critical',
  unavailable: 'critical',
  trying_resume_work: 'critical',
  synchronized: 'critical',
} as const;
export type SystemNoticeMessage = keyof typeof SYSTEM_NOTICES;
const SYSTEM_MESSAGES = [
  'authorized',
  'disabled',
  'phone offline',
  'phone online',
  'unavailable',
  'trying_resume_work',
  'synchronized',
] as const satisfies readonly SystemNoticeMessage[];

/**
 * The v1 channel payloads (docs/design.md section 6, the v1 webhooks page of the hosted service),
 * written for channels created through API v1 besides the v2 `auth.update`. Every one carries
 * `{id, entity: 'channel', type, company_id, channel_id, channel_type, created_at}` (`channel_type`
 * is the provider code), then by `type`:
 * - `qr_code`: `event: 'new'`, `data` the QR code as a base64 PNG;
 * - `code`: `event: 'new'`, `data` the code to type into the phone app;
 * - `pages`: `event: 'new'`, `data` the pages to pick from;
 * - `system`: a notice about the session, `severity` and `data: {message, date, date_timestamp,
 *   timestamp, details: {entity: 'channel', entity_id}, reason?}`.
 * Named `channel.qr_code`, `channel.code`, `channel.pages`, and `channel.state` for `system`.
 */
export const channelV1Event = {
  $id: 'events/channel-v1',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'entity', 'type', 'company_id', 'channel_id', 'channel_type', 'created_at', 'data'],
  properties: {
    id: eventId,
    entity: { const: 'channel' },
    type: { type: 'string', enum: ['qr_code', 'code', 'pages', 'system'] },
    event: { const: 'new' },
    severity: { type: 'string', enum: ['information', 'critical'] },
    company_id: { type: 'integer' },
    channel_id: { type: 'integer' },
    channel_type: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    data: {},
  },
  allOf: [
    {
      if: { properties: { type: { const: 'qr_code' } } },
      then: {
        required: ['event'],
        properties: {
          data: {
            type: 'string',
            contentEncoding: 'base64',
            contentMediaType: 'image/png',
            pattern: '^[A-Za-z0-9+/]+=*$',
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'code' } } },
      then: { required: ['event'], properties: { data: { type: 'string', minLength: 1 } } },
    },
    {
      if: { properties: { type: { const: 'pages' } } },
      then: {
        required: ['event'],
        properties: {
          data: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'name'],
              additionalProperties: false,
              properties: { id: { type: 'string' }, name: { type: 'string' }, username: { type: 'string' } },
            },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'system' } } },
      then: {
        required: ['severity'],
        properties: {
          data: {
            type: 'object',
            additionalProperties: false,
            required: ['message', 'date', 'date_timestamp', 'timestamp', 'details'],
            properties: {
              message: { type: 'string', enum: SYSTEM_MESSAGES },
              /** `2017-11-11 12:45:53 UTC`, the documented format. */
              date: v1Time,
              /** When it happened, unix seconds. */
              date_timestamp: unixSeconds,
              /** When the webhook was written, unix seconds. */
              timestamp: unixSeconds,
              details: {
                type: 'object',
                additionalProperties: false,
                required: ['entity', 'entity_id'],
                properties: { entity: { const: 'channel' }, entity_id: { type: 'integer' } },
              },
              /** The connector's words, when it gave any. */
              reason: { type: 'string' },
            },
          },
        },
      },
    },
  ],
} as const satisfies JSONSchema;

export type ChannelV1EventType = (typeof channelV1Event.properties.type.enum)[number];
