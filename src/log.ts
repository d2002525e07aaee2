import { writeSync } from 'node:fs';
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
 * The daemon's log destination on standard output: the lines of one turn of the event loop are
 * joined and handed to pino's asynchronous destination (sonic-boom) in one write. Given one line
 * at a time, sonic-boom appends each to the text it has not written yet and measures that text
 * again, which copies it whole for every line: at full load, about 4 kB of garbage per request
 * line (BENCHMARKS.md, "Where the time goes"). Lines still held when the process exits are
 * written synchronously then.
 */
export function stdoutDestination(): pino.DestinationStream {
  const sink = pino.destination({ dest: 1, sync: false });
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    sink.write(text);
  };
  process.on('exit', () => {
    if (lines.length === 0) return;
    try {
      sink.flushSync();
      writeSync(1, lines.join(''));
    } catch {
      // Standard output is gone (a closed pipe): nothing can be written any more.
    }
  });
  return {
    write(line: string) {
      if (lines.push(line) === 1) setImmediate(flush);
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
