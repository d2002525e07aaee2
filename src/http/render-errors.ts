import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { AppError, BadRequest, InternalError, MethodNotAllowed, NotFound, PayloadTooLarge, UnsupportedMediaType } from '../errors/errors.js';

/**
 * The one error renderer. AppErrors render as themselves; errors raised by Koa's own parts (body
 * parsing, allowed-methods) are mapped to the vocabulary; anything else is logged with the request
 * id and answered as a generic 500 that reveals no internals.
 */
export function renderErrors(): Middleware<AppState> {
  return async (ctx, next) => {
    let error: AppError;
    try {
      await next();
      if (ctx.status !== 404 || ctx.body !== undefined) return;
      error = new NotFound(`No route matches ${ctx.method} ${ctx.path}.`);
    } catch (thrown) {
      error = toAppError(thrown, ctx);
      if (error.report) ctx.state.log.error({ err: thrown }, 'unhandled error');
    }
    ctx.status = error.status;
    ctx.body = { errors: error.entries };
  };
}

function toAppError(thrown: unknown, ctx: { method: string; path: string; state: AppState }): AppError {
  if (thrown instanceof AppError) return thrown;
  const http = thrown as { status?: unknown; type?: unknown; expose?: unknown; message?: unknown };
  switch (http?.status) {
    case 400:
      return new BadRequest(
        http.type === 'entity.parse.failed' || /JSON|json/.test(String(http.message))
          ? 'The request body is not valid JSON.'
          : 'The request body could not be read.',
      );
    case 405:
    case 501:
      return new MethodNotAllowed(`${ctx.method} is not allowed on ${ctx.path}.`);
    case 413:
      return new PayloadTooLarge('The request body is larger than the limit.');
    case 415:
      return new UnsupportedMediaType('Send the body as application/json or application/x-www-form-urlencoded.');
    default:
      return new InternalError(ctx.state.requestId);
  }
}
