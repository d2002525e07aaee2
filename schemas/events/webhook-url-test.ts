import type { JSONSchema } from 'json-schema-to-ts';
import { eventId } from './fields.js';

/**
 * The test POST a company's v1 `webhook_url` gets when it is set or changed (the v1 companies page
 * of the hosted service: a JSON `{source, operation: 'test'}` the address must answer with 200).
 * `source` names this gateway. Named `webhook_url.test`; sent to that endpoint only, signed and
 * retried like every delivery.
 */
export const webhookUrlTestEvent = {
  $id: 'events/webhook-url-test',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'source', 'operation', 'company_id', 'created_at'],
  properties: {
    id: eventId,
    source: { const: 'gateway' },
    operation: { const: 'test' },
    company_id: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JSONSchema;
