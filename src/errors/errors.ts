/**
 * The one error vocabulary of the gateway. Every error has a stable snake_case `code`, a title and
 * a detail for the person reading it. It knows nothing of HTTP: the renderer in
 * src/http/render-errors.ts maps each code to its status and the contract's error shape.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'validation_failed'
  | 'too_many_requests'
  | 'wrong_provider'
  | 'provider_refused'
  | 'provider_unavailable'
  | 'not_implemented'
  | 'service_unavailable'
  | 'internal_error';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly title: string,
    detail: string,
    /** Worth an error-level log line: only for our own faults, never for bad input. */
    readonly report = false,
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

/** The request cannot be read at all (a body that is not JSON, a part that is not a file). */
export class BadRequest extends AppError {
  constructor(detail: string) {
    super('bad_request', 'Bad request', detail);
  }
}

export class Unauthorized extends AppError {
  constructor(detail: string) {
    super('unauthorized', 'Unauthorized', detail);
  }
}

/** Authenticated or not, the request may not do this (e.g. a subscribe handshake with a wrong verify token). */
export class Forbidden extends AppError {
  constructor(detail: string) {
    super('forbidden', 'Forbidden', detail);
  }
}

export class NotFound extends AppError {
  constructor(detail: string) {
    super('not_found', 'Not found', detail);
  }
}

export class MethodNotAllowed extends AppError {
  constructor(detail: string) {
    super('method_not_allowed', 'Method not allowed', detail);
  }
}

export class Conflict extends AppError {
  constructor(detail: string) {
    super('conflict', 'Conflict', detail);
  }
}

export class PayloadTooLarge extends AppError {
  constructor(detail: string) {
    super('payload_too_large', 'Payload too large', detail);
  }
}

/** The client did not send its request (head or body) within the server's timeouts. */
export class RequestTimeout extends AppError {
  constructor(detail: string) {
    super('request_timeout', 'Request timeout', detail);
  }
}

/** The query string is longer than the gateway reads. */
export class UriTooLong extends AppError {
  constructor(detail: string) {
    super('uri_too_long', 'URI too long', detail);
  }
}

/** The request line and headers are larger than the server reads. */
export class HeadersTooLarge extends AppError {
  constructor(detail: string) {
    super('headers_too_large', 'Request header fields too large', detail);
  }
}

export class UnsupportedMediaType extends AppError {
  constructor(detail: string) {
    super('unsupported_media_type', 'Unsupported media type', detail);
  }
}

/**
 * A rate limit of the API was reached. Title and detail are the hosted service's documented ones
 * (its rate-limits page: "Please wait for 50 seconds"), so that a client reading the wait from the
 * detail keeps working.
 */
export class TooManyRequests extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('too_many_requests', 'Too many requests error', `Please wait for ${retryAfterSeconds} seconds`);
  }
}

/** An action that needs a part not configured yet (the provider connectors). */
export class NotImplemented extends AppError {
  constructor(detail: string) {
    super('not_implemented', 'Not implemented', detail);
  }
}

/** The action does not exist for the channel's provider (request_code of a bot, a page of a messenger). */
export class WrongProvider extends AppError {
  constructor(detail: string) {
    super('wrong_provider', 'Wrong provider for this action', detail);
  }
}

/** The provider (or its connector) refused the step for good: a wrong code, an unknown page. */
export class ProviderRefused extends AppError {
  constructor(detail: string) {
    super('provider_refused', 'Refused by the provider', detail);
  }
}

/** The provider could not be reached or failed (5xx, timeout): worth trying again later. */
export class ProviderUnavailable extends AppError {
  constructor(detail: string) {
    super('provider_unavailable', 'Provider unavailable', detail);
  }
}

export class ServiceUnavailable extends AppError {
  constructor(detail: string) {
    super('service_unavailable', 'Service unavailable', detail);
  }
}

export class InternalError extends AppError {
  constructor(requestId: string) {
    super('internal_error', 'Internal server error', `An unexpected error occurred (request id ${requestId}).`, true);
  }
}

/** One failing field: `field` is a JSON pointer without the leading slash, e.g. `template/id`. */
export interface FieldProblem {
  field: string;
  detail: string;
}

/** Input that was read but breaks a rule: one problem per failing field. */
export class ValidationFailed extends AppError {
  readonly problems: FieldProblem[];

  constructor(problems: FieldProblem[]) {
    super('validation_failed', 'Validation failed', problems.map((p) => p.detail).join('; '));
    this.problems = problems;
  }

  static field(field: string, detail: string): ValidationFailed {
    return new ValidationFailed([{ field, detail }]);
  }
}
