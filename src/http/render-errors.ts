import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import {
  AppError,
  BadRequest,
  InternalError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  UnsupportedMediaType,
  ValidationFailed,
  type ErrorCode,
} from '../errors/errors.js';

/**
 * One entry of the contract's error body `{errors: [{status, code, title, detail}]}`; a validation
 * failure has one per field, each with `source.pointer` naming the field.
 */
export interface ErrorEntry {
  status: number;
  code: string;
  title: string;
  detail: string;
  source?: { pointer: string };
}

/** The HTTP status each error code answers with. */
const STATUS_OF_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  validation_failed: 422,
  too_many_requests: 429,
  wrong_provider: 422,
  provider_refused: 422,
  not_implemented: 501,
  provider_unavailable: 502,
  service_unavailable: 503,
  internal_error: 500,
};

export function httpStatusOf(error: AppError): number {
  return STATUS_OF_CODE[error.code];
}

/** The entries of the error body that answers `error`. */
export function errorEntries(error: AppError): ErrorEntry[] {
  const status = httpStatusOf(error);
  if (error instanceof ValidationFailed) {
    return error.problems.map((p) => ({
      status,
      code: error.code,
      title: error.title,
      detail: p.detail,
      source: { pointer: p.field === '' ? '' : `/${p.field}` },
    }));
  }
  return [{ status, code: error.code, title: error.title, detail: error.message }];
}

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
    ctx.status = httpStatusOf(error);
    ctx.body = { errors: errorEntries(error) };
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
