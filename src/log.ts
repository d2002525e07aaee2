import pino, { type Logger } from 'pino';
import type { LogLevel } from './config/config.js';
import { traceLogFields } from './tracing/tracer.js';

export type { Logger };

/**
 * Paths that could carry a secret if a caller ever logs a request, a channel or a config object.
 * Request lines log the path only (never the query string), so tokens in the query never reach
 * the log either.
 */
const REDACT = [
  'token',
  'password',
  'secret',
  'credentials',
  'private_api_token',
  '*.token',
  '*.password',
  '*.secret',
  '*.credentials',
  '*.private_api_token',
  'headers["x-private-api-token"]',
  'headers.authorization',
  'config.adminToken',
  'config.bootstrapToken',
];

/**
 * The daemon's logger. With `traceFields` (tracing is on, docs/tracing.md) every line written while
 * a span is active carries its `trace_id` and `span_id`; without, no mixin runs at all.
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream, options: { traceFields?: boolean } = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'gateway' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(options.traceFields === true ? { mixin: traceLogFields } : {}),
    },
    destination,
  );
}

/**
 * The same logger without the redaction pass, for lines whose fields are fixed by the caller and can
 * never hold a secret (ids, counts, a method, a masked path, a status): redacting them changes
 * nothing and costs more than writing the line. Never log objects from outside through it.
 */
export function unredacted(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: '[redacted]' } });
}
