import type { Middleware } from 'koa';
import { ATTR } from '../tracing/attributes.js';
import { contextFromHeaders, failSpan, failSpanWith, runIn, SpanKind, startSpan, withSpan } from '../tracing/tracer.js';
import type { AppState } from './context.js';
import { loggedPath } from './request-log.js';

/**
 * Outermost middleware while tracing is on (docs/tracing.md): every request (API, provider
 * callback, admin) runs in a SERVER span, child of the `traceparent` the caller sent, if any. What
 * the request does runs under it: its store transaction is linked with it, the outbox rows it
 * writes keep its context, and its log lines carry its trace and span ids. Named
 * `<method> <route>` once the route is known (`<method>` for an unmatched path); 5xx answers mark
 * it failed. Only the masked path is recorded, never the query string, as in the request log.
 */
export function traceRequests(): Middleware<AppState> {
  return async (ctx, next) => {
    const parent = contextFromHeaders(ctx.req.headers);
    const span = startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR.httpMethod]: ctx.method, [ATTR.urlPath]: loggedPath(ctx.path), 'url.scheme': ctx.protocol },
      },
      parent,
    );
    try {
      await runIn(withSpan(span, parent), next);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      if (route !== undefined) {
        span.updateName(`${ctx.method} ${String(route)}`);
        span.setAttribute(ATTR.httpRoute, String(route));
      }
      span.setAttribute(ATTR.httpStatus, ctx.status);
      if (ctx.state.requestId !== undefined) span.setAttribute(ATTR.requestId, ctx.state.requestId);
      if (ctx.status >= 500) failSpanWith(span, String(ctx.status), `answered ${ctx.status}`);
      span.end();
    }
  };
}
