/**
 * The one error vocabulary of the HTTP API. Every error body has the contract's shape
 * `{errors: [{status, code, title, detail}]}`; validation failures carry one entry per field,
 * each with `source.pointer` naming the field.
 */
export interface ErrorEntry {
  status: number;
  code: string;
  title: string;
  detail: string;
  source?: { pointer: string };
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    /** Worth an error-level log line: only for our own faults, never for bad input. */
    readonly report = false,
  ) {
    super(detail);
    this.name = new.target.name;
  }

  get entries(): ErrorEntry[] {
    return [{ status: this.status, code: this.code, title: this.title, detail: this.message }];
  }
}

export class BadRequest extends AppError {
  constructor(detail: string) {
    super(400, 'bad_request', 'Bad request', detail);
  }
}

export class Unauthorized extends AppError {
  constructor(detail: string) {
    super(401, 'unauthorized', 'Unauthorized', detail);
  }
}

/** Authenticated or not, the request may not do this (e.g. a subscribe handshake with a wrong verify token). */
export class Forbidden extends AppError {
  constructor(detail: string) {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}

export class NotFound extends AppError {
  constructor(detail: string) {
    super(404, 'not_found', 'Not found', detail);
  }
}

export class MethodNotAllowed extends AppError {
  constructor(detail: string) {
    super(405, 'method_not_allowed', 'Method not allowed', detail);
  }
}

export class Conflict extends AppError {
  constructor(detail: string) {
    super(409, 'conflict', 'Conflict', detail);
  }
}

export class PayloadTooLarge extends AppError {
  constructor(detail: string) {
    super(413, 'payload_too_large', 'Payload too large', detail);
  }
}

export class UnsupportedMediaType extends AppError {
  constructor(detail: string) {
    super(415, 'unsupported_media_type', 'Unsupported media type', detail);
  }
}

/** An action that needs a part not configured yet (the provider connectors). */
export class NotImplemented extends AppError {
  constructor(detail: string) {
    super(501, 'not_implemented', 'Not implemented', detail);
  }
}

/** The action does not exist for the channel's provider (request_code of a bot, a page of a messenger). */
export class WrongProvider extends AppError {
  constructor(detail: string) {
    super(422, 'wrong_provider', 'Wrong provider for this action', detail);
  }
}

/** The provider (or its connector) refused the step for good: a wrong code, an unknown page. */
export class ProviderRefused extends AppError {
  constructor(detail: string) {
    super(422, 'provider_refused', 'Refused by the provider', detail);
  }
}

/** The provider could not be reached or failed (5xx, timeout): worth trying again later. */
export class ProviderUnavailable extends AppError {
  constructor(detail: string) {
    super(502, 'provider_unavailable', 'Provider unavailable', detail);
  }
}

export class ServiceUnavailable extends AppError {
  constructor(detail: string) {
    super(503, 'service_unavailable', 'Service unavailable', detail);
  }
}

export class InternalError extends AppError {
  constructor(requestId: string) {
    super(500, 'internal_error', 'Internal server error', `An unexpected error occurred (request id ${requestId}).`, true);
  }
}

/** One failing field: `field` is a JSON pointer without the leading slash, e.g. `template/id`. */
export interface FieldProblem {
  field: string;
  detail: string;
}

export class ValidationFailed extends AppError {
  readonly problems: FieldProblem[];

  constructor(problems: FieldProblem[]) {
    super(422, 'validation_failed', 'Validation failed', problems.map((p) => p.detail).join('; '));
    this.problems = problems;
  }

  static field(field: string, detail: string): ValidationFailed {
    return new ValidationFailed([{ field, detail }]);
  }

  override get entries(): ErrorEntry[] {
    return this.problems.map((p) => ({
      status: 422,
      code: 'validation_failed',
      title: 'Validation failed',
      detail: p.detail,
      source: { pointer: p.field === '' ? '' : `/${p.field}` },
    }));
  }
}
