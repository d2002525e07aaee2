import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

/** Polls until `check` returns true; fails with `what` after `timeoutMs` (a ceiling, not a measurement). */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A logger that keeps its lines in memory (tests read them to prove secrets never appear). */
export function memoryLogger(level: 'warn' | 'info' | 'debug' = 'warn'): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(level, sink), text: () => lines.join('') };
}

/**
 * Runs a janitor (src/workers/janitor.ts) until its first pass is done, then stops it; answers its
 * log (debug), whose `pruned <what>` line says how many rows the pass deleted.
 */
export async function firstJanitorPass(
  start: (logger: Logger, signal: AbortSignal) => Promise<void>,
  what: string,
): Promise<string> {
  const abort = new AbortController();
  const log = memoryLogger('debug');
  const running = start(log.logger, abort.signal);
  // Logged once the whole pass is done (the next one is minutes away).
  await eventually('a pass of the janitor', () => log.text().includes(`pruned ${what}`));
  abort.abort();
  await running;
  return log.text();
}
