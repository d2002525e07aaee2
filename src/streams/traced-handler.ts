import { ATTR } from '../tracing/attributes.js';
import {
  contextFrom,
  endSpan,
  isTracing,
  linkTo,
  runIn,
  SpanKind,
  startSpan,
  withSpan,
  type Attributes,
  type Link,
} from '../tracing/tracer.js';
import type { IncomingMessage, MessageHandler } from './stream.js';

/** Which stream a subscription consumes, for its spans. */
export interface ConsumedStream {
  system: 'sqlite' | 'kafka';
  stream: string;
  group: string;
}

/**
 * A subscription's handler that handles each message in a `process <stream>` CONSUMER span, child
 * of the context the message carries (its publisher's span), so the trace goes on across the stream
 * and, on Kafka, across processes; what the handler starts (a webhook attempt, a provider call, a
 * publish) runs under it. The span ends when the handler resolved (a CommitAfter's `durable` may
 * still be on its way). With tracing off it answers the handler itself: no wrapper runs.
 */
export function tracedHandler(consumed: ConsumedStream, handler: MessageHandler): MessageHandler {
  if (!isTracing()) return handler;
  return (message) => {
    const parent = contextFrom(message.traceparent);
    const span = startSpan(
      `process ${consumed.stream}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { ...processAttributes(consumed), [ATTR.messagingMessageId]: message.id },
      },
      parent,
    );
    let handled: ReturnType<MessageHandler>;
    try {
      handled = runIn(withSpan(span, parent), () => handler(message));
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
    return handled.then(
      (result) => {
        span.end();
        return result;
      },
      (error: unknown) => {
        endSpan(span, error);
        throw error;
      },
    );
  };
}

/**
 * A batch handler (runs of a partition, `subscribeBatches`) that handles each run in one
 * `process <stream>` CONSUMER span, the root of a trace of its own with a link to the context of
 * every message of the run (a span has one parent; a run continues many traces).
 */
export function tracedBatchHandler(
  consumed: ConsumedStream,
  handler: (messages: readonly IncomingMessage[]) => Promise<void>,
): (messages: readonly IncomingMessage[]) => Promise<void> {
  if (!isTracing()) return handler;
  return async (messages) => {
    const links = messages
      .map((message) => linkTo(message.traceparent))
      .filter((link): link is Link => link !== undefined);
    const span = startSpan(
      `process ${consumed.stream}`,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: { ...processAttributes(consumed), [ATTR.messagingBatchCount]: messages.length },
      },
      contextFrom(null),
    );
    try {
      await runIn(withSpan(span, contextFrom(null)), () => handler(messages));
      span.end();
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  };
}

function processAttributes({ system, stream, group }: ConsumedStream): Attributes {
  return {
    [ATTR.messagingSystem]: system,
    [ATTR.messagingDestination]: stream,
    [ATTR.messagingOperationType]: 'process',
    [ATTR.messagingOperationName]: 'process',
    [ATTR.messagingConsumerGroup]: group,
  };
}
