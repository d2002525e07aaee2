import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { unredacted, type Logger } from '../log.js';
import type { AppState } from './context.js';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request path as logged: the storage key of a file URL is its access secret and is masked. */
export function loggedPath(path: string): string {
  return path.replace(/^\/files\/[^/]+/, '/files/[key]');
}

/**
 * Outermost middleware: gives the request an id (reusing a sane incoming X-Request-Id), and logs
 * one line when it ends. Only the path is logged, never the query string, which may hold a token.
 */
export function requestLog(logger: Logger): Middleware<AppState> {
  const lines = unredacted(logger);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('x-request-id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    const lineLog = lines.child({ reqId: requestId });
    ctx.state.lineLog = lineLog;
    // The redacting child is made when a handler first logs through it (most requests never do).
    let log: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      get: () => (log ??= logger.child({ reqId: requestId })),
      set: (value: Logger) => {
        log = value;
      },
      enumerable: true,
      configurable: true,
    });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Fixed fields only (the path is masked, never the query string): no redaction needed.
      lineLog.info(
        { method: ctx.method, path: loggedPath(ctx.path), status: ctx.status, ms: Math.round(ms * 100) / 100, account: ctx.state.account?.id },
        'request',
      );
    }
  };
}
