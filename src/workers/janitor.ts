import type { Logger } from '../log.js';
import type { PruneStep } from '../store/engine/prune.js';
import type { Store } from '../store/store.js';
import { pause, type Clock } from '../streams/stream.js';
import type { Worker } from './supervisor.js';

/** What a janitor's options say: the defaults are each janitor's own. */
export interface JanitorOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  retainMs?: number;
  everyMs?: number;
  batch?: number;
}

/** One batch of a pass: the rows it deleted, and whether more may wait. */
export interface PruneBatch {
  deleted: number;
  more: boolean;
}

/**
 * Every `everyMs`, deletes what is older than the retention, in batches with a short pause between
 * them, so that the transactions of callbacks never wait long behind it. `pass` starts a pass over
 * what was created before the time it is given and answers its next batch, one call each.
 */
export class Janitor implements Worker {
  constructor(
    readonly name: string,
    private readonly options: {
      clock: Clock;
      logger: Logger;
      retainMs: number;
      everyMs: number;
      pruned: string;
      pass: (before: number) => () => PruneBatch;
    },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger, retainMs, everyMs, pruned, pass } = this.options;
    while (!signal.aborted) {
      const next = pass(clock.now() - retainMs);
      let deleted = 0;
      for (let more = true; more && !signal.aborted;) {
        const batch = next();
        deleted += batch.deleted;
        more = batch.more;
        if (more) await pause(20, signal);
      }
      if (deleted > 0) logger.debug({ deleted }, `pruned ${pruned}`);
      await pause(everyMs, signal);
    }
  }
}

/**
 * A janitor's pass over a retention scan (src/store/engine/prune.ts): `prune(before, after, limit)` deletes
 * what may go among the next `limit` rows past key `after`; each batch goes on from the last key
 * the one before looked at, until nothing past it is old enough.
 */
export function scanPass(
  prune: (before: number, after: number, limit: number) => PruneStep,
  batch: number,
): (before: number) => () => PruneBatch {
  return (before) => {
    let after = 0;
    return () => {
      const { upto, deleted } = prune(before, after, batch);
      if (upto === null) return { deleted: 0, more: false };
      after = upto;
      return { deleted, more: true };
    };
  };
}
