import type { JSONSchema } from 'json-schema-to-ts';
import { v1Payload } from './fields.js';

/**
 * The v1 write-first job result (contract section 6; "Delivery job executed" of the v1 webhooks page
 * of the hosted service), written when a job of `POST /p1/companies/<id>/channels/<id>/conversations`
 * finishes: `DELIVERED` once the provider took the message, `NOT DELIVERED` with the `reason` when
 * it refused it for good. Ids are integers, `date` unix seconds, as documented. Named `job.executed`.
 */
export const jobV1Event = v1Payload('events/job-v1', 'job', { const: 'executed' }, {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'result', 'message_id', 'date'],
  properties: {
    /** The job id the create-conversation request answered (GET .../jobs/<id> shows it). */
    id: { type: 'integer', minimum: 1 },
    result: { type: 'string', enum: ['DELIVERED', 'NOT DELIVERED'] },
    /** The gateway's message id (also in the create-conversation answer). */
    message_id: { type: 'integer' },
    /** The provider's message id, when it took the message. */
    external_id: { type: ['string', 'null'] },
    /** When the result was known, unix seconds. */
    date: { type: 'integer', minimum: 0 },
    reason: { type: 'string' },
  },
  if: { properties: { result: { const: 'NOT DELIVERED' } } },
  then: { required: ['reason'], properties: { reason: { type: 'string' } } },
} as const) satisfies JSONSchema;
