import { ATTR } from '../../tracing/attributes.js';
import {
  linkToSpan,
  ROOT_CONTEXT,
  SpanKind,
  spanOf,
  startSpan,
  type Context,
  type Link,
  type Span,
} from '../../tracing/tracer.js';

/**
 * The `store transaction` span of one group commit (docs/tracing.md). One SQLite transaction serves
 * the units of many callers (provider callbacks, API requests, consumers), and a span has one
 * parent: so the transaction's span is the root of a trace of its own, with a link to the span of
 * every caller that had one, and each of those spans gets a link back to it. Answers undefined when
 * no caller had a span (background work only): such commits make no trace.
 */
export function startCommitSpan(callers: readonly (Context | undefined)[]): Span | undefined {
  const links: Link[] = [];
  const linked: Span[] = [];
  const seen = new Set<string>();
  for (const caller of callers) {
    const span = caller === undefined ? undefined : spanOf(caller);
    if (span === undefined) continue;
    const { spanId } = span.spanContext();
    if (seen.has(spanId)) continue;
    seen.add(spanId);
    links.push(linkToSpan(span));
    linked.push(span);
  }
  if (links.length === 0) return undefined;
  const commit = startSpan(
    'store transaction',
    {
      kind: SpanKind.INTERNAL,
      links,
      attributes: {
        [ATTR.dbSystem]: 'sqlite',
        [ATTR.commitUnits]: callers.length,
        [ATTR.commitTracedUnits]: links.length,
      },
    },
    ROOT_CONTEXT,
  );
  const back = linkToSpan(commit);
  // A span that ended already (an attempt being recorded) takes no more links.
  for (const span of linked) if (span.isRecording()) span.addLink(back);
  return commit;
}
