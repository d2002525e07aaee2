import { ATTR } from '../tracing/attributes.js';
import {
  endSpan,
  failSpanWith,
  isTracing,
  linkToSpan,
  runIn,
  SpanKind,
  startSpan,
  withSpan,
  type Span,
} from '../tracing/tracer.js';
import type { ProviderSendJob, SendResult } from './connector.js';

/**
 * The spans of provider calls (docs/tracing.md): each try of a send is a `provider send` CLIENT
 * span under the span its job was consumed in, and a try after a transient failure is a new span
 * linked to the first try's. With tracing off the call runs as it is.
 */
export class ProviderCallSpans {
  private first: Span | undefined;

  constructor(private readonly job: ProviderSendJob) {}

  /** Runs one try of the send (try number `tries`) in its span; the span ends with the result. */
  async send<R extends SendResult>(tries: number, call: () => Promise<R>): Promise<R> {
    if (!isTracing()) return call();
    const { job } = this;
    const span = startSpan('provider send', {
      kind: SpanKind.CLIENT,
      links: this.first === undefined ? [] : [linkToSpan(this.first, { [ATTR.linkReason]: 'first try' })],
      attributes: {
        [ATTR.provider]: job.send?.provider ?? 'unknown',
        [ATTR.channelId]: job.channel_id,
        [ATTR.messageId]: job.message_id,
        [ATTR.sendJobId]: job.job_id,
        [ATTR.sendTry]: tries,
      },
    });
    this.first ??= span;
    let result: R;
    try {
      result = await runIn(withSpan(span), call);
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
    if (result.kind === 'sent') span.setAttribute(ATTR.sendResult, 'sent');
    else {
      span.setAttribute(ATTR.sendResult, result.permanent ? 'refused' : 'failed');
      failSpanWith(span, result.error.code, result.error.title);
    }
    span.end();
    return result;
  }
}
