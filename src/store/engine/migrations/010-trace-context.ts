import type { Migration } from './migration.js';

/**
 * The W3C trace context (a `traceparent`, docs/tracing.md) travels with the work through its
 * durable hops, so that one trace runs from a provider callback to the webhook answer: the outbox
 * row keeps the context of the change that wrote it, a stream message that of its publish, and a
 * delivery that of the publish that created it (its retries and replays link to it). NULL while
 * tracing is off, and for rows written before.
 */
export const traceContext: Migration = {
  version: 10,
  name: 'trace context of outbox rows, stream messages and deliveries',
  sql: `
    ALTER TABLE outbox ADD COLUMN traceparent TEXT;
    ALTER TABLE stream_messages ADD COLUMN traceparent TEXT;
    ALTER TABLE webhook_deliveries ADD COLUMN traceparent TEXT;
  `,
};
