import { setMaxListeners } from 'node:events';
import type { Logger } from '../log.js';
import { pause } from '../streams/stream.js';

/** The one contract of every background worker: run until the signal aborts, then return. */
export interface Worker {
  readonly name: string;
  run(signal: AbortSignal): Promise<void>;
}

export interface Supervisor {
  stop(): Promise<void>;
}

/**
 * Runs the workers and owns their shutdown. A worker that throws is logged and started again after
 * a growing pause; a stop aborts the shared signal and waits for every worker to return.
 */
export function supervise(workers: readonly Worker[], logger: Logger): Supervisor {
  const abort = new AbortController();
  // Every wait of every worker listens to it while it waits (a sender's retry pauses, up to its
  // 32 jobs in flight): many at once is normal, not Node's "possible leak" past 10.
  setMaxListeners(0, abort.signal);
  const running = workers.map(async (worker) => {
    for (let crashes = 0; !abort.signal.aborted; crashes += 1) {
      try {
        await worker.run(abort.signal);
        if (abort.signal.aborted) return;
        crashes = -1; // returned on its own: start it again at once
      } catch (error) {
        logger.error({ err: error, worker: worker.name }, 'worker crashed; restarting');
      }
      await pause(Math.min(200 * 2 ** Math.max(crashes, 0), 10_000), abort.signal);
    }
  });
  logger.info({ workers: workers.map((w) => w.name) }, 'workers started');
  return {
    async stop() {
      abort.abort();
      await Promise.all(running);
    },
  };
}

/**
 * The longest pause between two tries of a failed pass or publish. What fails there is mostly the
 * stream away (a broker outage): a try at least every second finds it back within a second, so the
 * backlog of an outage starts draining at once, at the cost of one failed try a second meanwhile.
 */
export const RETRY_PAUSE_MAX_MS = 1_000;

/**
 * Retries `fn` with a growing pause (200 ms to RETRY_PAUSE_MAX_MS) until it succeeds or the signal
 * aborts (then it throws). The first call goes without the retry loop: nearly every call succeeds
 * at once, and a webhook attempt makes two of them (its POST and its record) while in flight.
 */
export function untilDone<T>(what: string, fn: () => Promise<T>, signal: AbortSignal, logger: Logger): Promise<T> {
  let first: Promise<T>;
  try {
    first = fn();
  } catch (error) {
    return retryUntilDone(what, fn, signal, logger, error);
  }
  return first.catch((error: unknown) => retryUntilDone(what, fn, signal, logger, error));
}

async function retryUntilDone<T>(
  what: string,
  fn: () => Promise<T>,
  signal: AbortSignal,
  logger: Logger,
  firstError: unknown,
): Promise<T> {
  let error = firstError;
  for (let failures = 0; ; failures += 1) {
    if (signal.aborted) throw error;
    logger.warn({ err: error, failures: failures + 1 }, `${what} failed; trying again`);
    await pause(Math.min(200 * 2 ** failures, RETRY_PAUSE_MAX_MS), signal);
    try {
      return await fn();
    } catch (next) {
      error = next;
    }
  }
}

/**
 * The loop of a polling worker: runs `pass` again at once while it reports more work, after
 * `idleMs` when it ran dry (or as soon as `wake` calls back), and after a growing pause (logged as
 * `what` failed; 400 ms to RETRY_PAUSE_MAX_MS) when it throws, until the signal aborts.
 */
export async function repeatPasses(
  signal: AbortSignal,
  pass: () => Promise<'more' | 'idle'>,
  options: { idleMs: number; logger: Logger; what: string; wake?: Wake },
): Promise<void> {
  for (let failures = 0; !signal.aborted;) {
    try {
      const next = await pass();
      failures = 0;
      if (next === 'idle') await idle(options.idleMs, signal, options.wake);
    } catch (error) {
      if (signal.aborted) return;
      failures += 1;
      options.logger.warn({ err: error, failures }, `${options.what} failed; trying again`);
      await pause(Math.min(200 * 2 ** failures, RETRY_PAUSE_MAX_MS), signal);
    }
  }
}

/**
 * Pauses `ms`, or until `wake` calls back; leaves no timer, listener or wake subscription behind.
 * (It raced a promise shared by every wait until the next append: while nothing was appended, each
 * pass of an idle relay added a reaction to it, 20 a second for as long as the gateway was quiet.)
 */
async function idle(ms: number, signal: AbortSignal, wake?: Wake): Promise<void> {
  if (wake === undefined) return pause(ms, signal);
  const over = new AbortController();
  const stop = () => over.abort();
  signal.addEventListener('abort', stop, { once: true });
  const unsubscribe = wake(stop);
  try {
    await pause(ms, over.signal);
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', stop);
  }
}

/** Subscribes `wakeUp` to be called once, at the next event worth a pass; answers the unsubscribe. */
export type Wake = (wakeUp: () => void) => () => void;

/** Resolves when the signal aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
