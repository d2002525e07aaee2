import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { unredacted, type Logger } from '../log.js';
import type { AccountRow } from '../store/resources/accounts.js';
import type { AppState, LineFields } from './context.js';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request path as logged: the storage key of a file URL is its access secret and is masked. */
export function loggedPath(path: string): string {
  return path.replace(/^\/files\/[^/]+/, '/files/[key]');
}

/**
 * The state of one request (ctx.state). A class rather than an object literal with a getter defined
 * per request: the redacting child logger `log` is made when a handler first logs through it (most
 * requests never do), from a getter on the prototype, so no request pays for Object.defineProperty
 * (which also turned every state object into a slow dictionary-mode object).
 */
class RequestState implements AppState {
  account?: AccountRow;
  lineFields?: LineFields;
  private redacting: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly logger: Logger,
  ) {}

  get log(): Logger {
    return (this.redacting ??= this.logger.child({ reqId: this.requestId }));
  }

  set log(value: Logger) {
    this.redacting = value;
  }
}

/**
 * Outermost middleware: gives the request an id (reusing a sane incoming X-Request-Id), and logs
 * one line when it ends, with what the route added to it (ctx.state.lineFields: a callback's
 * channel and counts). Only the path is logged, never the query string, which may hold a token.
 */
export function requestLog(logger: Logger): Middleware<AppState> {
  const lines = unredacted(logger);
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    const state = new RequestState(requestId, logger);
    ctx.state = state;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      // Fixed fields only (the path is masked, never the query string; lineFields are ids and
      // counts): no redaction needed.
      lines.info(
        {
          reqId: requestId,
          method: ctx.method,
          path: loggedPath(ctx.path),
          status: ctx.status,
          ms: Math.round(ms * 100) / 100,
          account: state.account?.id,
          ...state.lineFields,
        },
        'request',
      );
    }
  };
}
