import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanOptions,
  type TextMapPropagator,
} from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind };
export type { Attributes, Context, Link, Span };

/**
 * The gateway's side of OpenTelemetry (docs/tracing.md): spans through the @opentelemetry/api, and
 * the W3C trace context that durable hops (outbox rows, stream messages, deliveries) carry as a
 * `traceparent` string. Until startTracing (src/tracing/sdk.ts) registers an SDK, `isTracing()` is
 * false and every traced path of the daemon skips its tracing work after that one check; the API
 * alone would hand out no-op spans, but the traced paths do not even build their attributes.
 */

/** The W3C trace-context propagator of the durable hops; null while tracing is off. */
let traceContext: TextMapPropagator | null = null;

const tracer = trace.getTracer('gateway');

/** Whether an SDK traces in this process (set once by startTracing, cleared at its shutdown). */
export function isTracing(): boolean {
  return traceContext !== null;
}

/** startTracing turns tracing on with the W3C propagator (null turns it off again). */
export function useTraceContext(propagator: TextMapPropagator | null): void {
  traceContext = propagator;
}

/** The trace context active now (the caller's span, if any). */
export function activeContext(): Context {
  return context.active();
}

/** Runs `fn` with `ctx` active: spans started inside, and the traceparents taken there, follow it. */
export function runIn<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** `ctx` (default: the active one) with `span` as its current span. */
export function withSpan(span: Span, ctx: Context = context.active()): Context {
  return trace.setSpan(ctx, span);
}

/** The span of a context, if it has one. */
export function spanOf(ctx: Context): Span | undefined {
  return trace.getSpan(ctx);
}

/**
 * The W3C `traceparent` of the span active in `ctx` (default: now), to store or send with the work
 * it hands on; undefined with tracing off or without a span.
 */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  if (traceContext === null) return undefined;
  const carrier: Record<string, string> = {};
  traceContext.inject(ctx, carrier, defaultTextMapSetter);
  return carrier.traceparent;
}

/** The `traceparent` of a span (not necessarily the active one). */
export function traceparentOfSpan(span: Span): string | undefined {
  return traceparentOf(trace.setSpan(ROOT_CONTEXT, span));
}

/**
 * A context whose parent is the span a stored `traceparent` names, to start the next span of that
 * trace under; the root context when there is none, it is malformed, or tracing is off.
 */
export function contextFrom(traceparent: string | null | undefined): Context {
  if (traceContext === null || traceparent === null || traceparent === undefined) return ROOT_CONTEXT;
  return traceContext.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
}

/**
 * The context an incoming request carries in its headers (`traceparent`, `tracestate`, `baggage`,
 * read by the registered propagators): a server span started under it continues the caller's trace.
 */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** A span link to the span a stored `traceparent` names; undefined when there is none. */
export function linkTo(traceparent: string | null | undefined, attributes?: Attributes): Link | undefined {
  const spanContext = trace.getSpanContext(contextFrom(traceparent));
  return spanContext === undefined || !isSpanContextValid(spanContext)
    ? undefined
    : { context: spanContext, attributes };
}

/** A span link to a span of this process. */
export function linkToSpan(span: Span, attributes?: Attributes): Link {
  return { context: span.spanContext(), attributes };
}

/** Starts a span under `parent` (default: the active context); it is not made active. */
export function startSpan(name: string, options: SpanOptions, parent: Context = context.active()): Span {
  return tracer.startSpan(name, options, parent);
}

/** Ends a span; with an error, records it and marks the span failed. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) failSpan(span, error);
  span.end();
}

/** Marks a span failed (status ERROR, the exception, `error.type`) without ending it. */
export function failSpan(span: Span, error: unknown, type?: string): void {
  const exception = error instanceof Error ? error : new Error(String(error));
  span.recordException(exception);
  span.setAttribute('error.type', type ?? exception.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
}

/** Marks a span failed with a message and an `error.type`, for failures that are answers, not exceptions. */
export function failSpanWith(span: Span, type: string, message: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * pino's `mixin` while tracing is on (src/log.ts): every line written while a span is active
 * carries its `trace_id` and `span_id`, so logs and traces join. Always a new object: pino merges
 * the line's own fields INTO the mixin's answer, so a shared one would collect every line's fields.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
