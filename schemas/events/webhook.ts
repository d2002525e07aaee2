import type { JSONSchema } from 'json-schema-to-ts';
import { webhookObject } from '../objects/webhook.js';
import { eventEnvelope } from './envelope.js';

/** The webhook object of the REST API, without the secret (an event never carries one). */
const { $id: _id, ...webhookShape } = webhookObject;
const { secret: _secret, ...webhookProperties } = webhookShape.properties;
const webhookInEvent = { ...webhookShape, properties: webhookProperties };

/**
 * Operational events about a company's webhook endpoint (docs/decisions.md, "Operational events"):
 * `webhook.disabled` when the gateway disables it (410 Gone, no success for
 * GATEWAY_WEBHOOK_DISABLE_AFTER) or someone does (API, admin API, portal), with `disabled_reason`;
 * `webhook.enabled` when it is enabled again. The object is the endpoint as the REST API shows it,
 * after the change. The endpoint an event is about never receives its own `webhook.disabled`.
 */
export const webhookEvent = eventEnvelope(
  'events/webhook',
  'webhook',
  ['disabled', 'enabled'],
  webhookInEvent,
) satisfies JSONSchema;

/**
 * The test event (`webhook.test`) a company sends to one of its endpoints from the portal: it goes to
 * that endpoint whatever its event filter, and never through the outbox.
 */
export const webhookTestEvent = eventEnvelope('events/webhook-test', 'webhook', ['test'], {
  type: 'object',
  additionalProperties: false,
  required: ['webhook_id', 'text'],
  properties: { webhook_id: { type: 'integer', minimum: 1 }, text: { type: 'string' } },
} as const) satisfies JSONSchema;
