import type { RelayRow } from '../store/pipeline/outbox-rows.js';
import type { OutgoingMessage } from '../streams/stream.js';
import { ATTR } from '../tracing/attributes.js';
import {
  contextFrom,
  endSpan,
  isTracing,
  SpanKind,
  startSpan,
  traceparentOfSpan,
  type Span,
} from '../tracing/tracer.js';

/**
 * The `send <stream>` PRODUCER spans of one relay batch (docs/tracing.md): one per outbox message,
 * child of the trace context the row was appended in (the request or consumer span of the change
 * it reports). The messages a row becomes (an event's delivery jobs, a send job) carry that span's
 * context to their consumers, and deliveries keep it for their retries and replays to link to.
 */
export class PublishSpans {
  private readonly spans: Span[] = [];

  private constructor(private readonly system: 'sqlite' | 'kafka') {}

  /** The spans of a batch about to be published; null while tracing is off. */
  static of(system: 'sqlite' | 'kafka'): PublishSpans | null {
    return isTracing() ? new PublishSpans(system) : null;
  }

  /** Builds the messages of a row inside its span: `build` gets the traceparent they carry. */
  wrap(row: RelayRow, build: (traceparent: string | undefined) => OutgoingMessage[]): OutgoingMessage[] {
    const span = startSpan(
      `send ${row.stream}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          [ATTR.messagingSystem]: this.system,
          [ATTR.messagingDestination]: row.stream,
          [ATTR.messagingOperationType]: 'send',
          [ATTR.messagingOperationName]: 'send',
          [ATTR.messagingMessageId]: row.message_id,
          // A message published in the commit that appended it has no row.
          ...(row.id === null ? {} : { [ATTR.outboxRowId]: row.id }),
        },
      },
      contextFrom(row.traceparent),
    );
    this.spans.push(span);
    try {
      const messages = build(traceparentOfSpan(span));
      span.setAttribute(ATTR.messagingBatchCount, messages.length);
      return messages;
    } catch (error) {
      this.end(error);
      throw error;
    }
  }

  /** Ends every span of the batch: published, or failed with `error`. */
  end(error?: unknown): void {
    for (const span of this.spans.splice(0)) endSpan(span, error);
  }
}
