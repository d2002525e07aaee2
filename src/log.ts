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
export function createLogger(
  level: LogLevel,
  destination?: pino.DestinationStream,
  options: { traceFields?: boolean } = {},
): Logger {
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

/** Longest a log line waits before it is written (the lines of that time go in one write). */
const FLUSH_MS = 10;

/**
 * The daemon's log destination on standard output: the lines of up to FLUSH_MS are joined and
 * written in one synchronous write (sonic-boom, pino's destination). Given one line at a time,
 * sonic-boom appends each to the text it has not written yet and measures that text again, which
 * copies it whole for every line: at full load, about 4 kB of garbage per request line
 * (measured in the commit that made this). The write is synchronous so that nothing is ever on its
 * way when the process exits: the lines still held then are written after everything before them.
 * Gathering for FLUSH_MS keeps those writes to about a hundred a second at full load.
 */
export function stdoutDestination(): pino.DestinationStream {
  const sink = pino.destination({ dest: 1, sync: true });
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    sink.write(text);
  };
  process.on('exit', () => {
    try {
      flush();
    } catch {
      // Standard output is gone (a closed pipe): nothing can be written any more.
    }
  });
  return {
    write(line: string) {
      if (lines.push(line) === 1) setTimeout(flush, FLUSH_MS).unref();
    },
  };
}

/**
 * The same logger without the redaction pass, for lines whose fields are fixed by the caller and can
 * never hold a secret (ids, counts, a method, a masked path, a status): redacting them changes
 * nothing and costs more than writing the line. Never log objects from outside through it.
 */
export function unredacted(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: '[redacted]' } });
}
