import type { AttemptRecord, DeliveryJob } from '../streams/catalog.js';
import type { OutgoingMessage, StreamBus } from '../streams/stream.js';
import { ATTR } from '../tracing/attributes.js';
import {
  endSpan,
  failSpanWith,
  isTracing,
  linkTo,
  SpanKind,
  startSpan,
  traceparentOfSpan,
  type Context,
  type Link,
  type Span,
} from '../tracing/tracer.js';

/**
 * The spans of webhook attempts (docs/tracing.md). Each attempt is a `POST webhook` CLIENT span,
 * child of the span its job was consumed in; its context is the `traceparent` the receiver gets.
 * Retries and replays start new traces (a retry hours later is its own run of work): their
 * `send <stream>` span links to the publish that created the delivery, in the callback's trace.
 */

/** Starts the span of one attempt (under the active context); undefined while tracing is off. */
export function startAttemptSpan(job: DeliveryJob): Span | undefined {
  if (!isTracing()) return undefined;
  return startSpan('POST webhook', {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR.httpMethod]: 'POST',
      ...targetAttributes(job.endpoint.url),
      [ATTR.endpointId]: job.endpoint.id,
      [ATTR.deliveryId]: job.delivery_id,
      [ATTR.attemptNumber]: job.attempt,
      [ATTR.attemptTrigger]: job.trigger,
      ...(job.step === null ? {} : { [ATTR.attemptStep]: job.step }),
      [ATTR.eventId]: job.event.id,
      [ATTR.eventName]: job.event.name,
      [ATTR.companyId]: job.event.company_id,
    },
  });
}

/** Ends an attempt's span with its outcome: failed unless the receiver answered 2xx. */
export function endAttemptSpan(span: Span, record: AttemptRecord): void {
  if (record.status_code !== null) span.setAttribute(ATTR.httpStatus, record.status_code);
  span.setAttribute(ATTR.attemptOutcome, record.outcome);
  span.setAttribute(ATTR.attemptDurationMs, record.duration_ms);
  if (record.outcome !== 'delivered') failSpanWith(span, errorType(record), record.error ?? record.outcome);
  span.end();
}

/**
 * Publishes retry or replay jobs, each in a `send <stream>` PRODUCER span under `parent` (a retry:
 * the root, so a new trace; a replay: the admin request) and linked to `origin`, the trace context
 * of its delivery's first publish. With tracing off, a plain publish.
 */
export async function publishRedeliveries(
  bus: StreamBus,
  stream: string,
  jobs: readonly { message: OutgoingMessage; origin: string | null }[],
  parent: Context,
): Promise<void> {
  if (!isTracing())
    return bus.publish(
      stream,
      jobs.map((job) => job.message),
    );
  const spans = jobs.map(({ message, origin }) => {
    const link = linkTo(origin, { [ATTR.linkReason]: 'delivery created' });
    const links: Link[] = link === undefined ? [] : [link];
    return startSpan(
      `send ${stream}`,
      {
        kind: SpanKind.PRODUCER,
        links,
        attributes: {
          [ATTR.messagingSystem]: bus.kind,
          [ATTR.messagingDestination]: stream,
          [ATTR.messagingOperationType]: 'send',
          [ATTR.messagingOperationName]: 'send',
          [ATTR.messagingMessageId]: message.id,
        },
      },
      parent,
    );
  });
  try {
    await bus.publish(
      stream,
      jobs.map(({ message }, index) => ({ ...message, traceparent: traceparentOfSpan(spans[index]!) })),
    );
  } catch (error) {
    for (const span of spans) endSpan(span, error);
    throw error;
  }
  for (const span of spans) span.end();
}

/** Where the attempt goes, without the query string or user info (either may hold a secret). */
function targetAttributes(url: string): Record<string, string | number> {
  try {
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    return {
      [ATTR.urlFull]: `${parsed.origin}${parsed.pathname}`,
      [ATTR.serverAddress]: parsed.hostname,
      [ATTR.serverPort]: port,
    };
  } catch {
    return {};
  }
}

/** `error.type`: the status code of an answer that is not 2xx, else what kept the request from an answer. */
function errorType(record: AttemptRecord): string {
  if (record.status_code !== null) return String(record.status_code);
  const error = record.error ?? '';
  if (error.startsWith('timed out')) return 'timeout';
  return /^([A-Z][A-Z0-9_]+):/.exec(error)?.[1] ?? 'request_failed';
}
