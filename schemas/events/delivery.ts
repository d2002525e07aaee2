import type { JSONSchema } from 'json-schema-to-ts';
import { deliveryObject } from '../objects/delivery.js';
import { eventEnvelope } from './envelope.js';

const { $id: _id, ...deliveryShape } = deliveryObject;

/**
 * `delivery.failed`: a delivery of an event to one of the company's endpoints failed for good (its
 * last scheduled attempt failed, the endpoint answered 410 Gone, or its endpoint was disabled or
 * removed while a retry waited). The object is the delivery, status `failed`; it stays replayable
 * from the admin API and the portal. The endpoint whose delivery failed does not receive it; deliveries
 * of operational events never cause one.
 */
export const deliveryEvent = eventEnvelope('events/delivery', 'delivery', ['failed'], {
  ...deliveryShape,
  properties: {
    ...deliveryShape.properties,
    status: { const: 'failed' },
    company_id: { type: 'integer', minimum: 1 },
    endpoint_id: { type: 'integer', minimum: 1 },
  },
} as const) satisfies JSONSchema;
