import pino, { type Logger } from 'pino';
import type { LogLevel } from './config/config.js';

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

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gateway' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
