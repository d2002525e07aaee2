import type { Logger } from '../log.js';
import type { StreamMessageStore } from '../store/stream-messages.js';
import { pause, type Clock } from './stream.js';
import type { Worker } from '../workers/supervisor.js';

/**
 * Keeps the embedded streams small: deletes messages committed by their consumer group once they
 * are older than `retainMs`. Each embedded stream has exactly one consumer group, so a commit by
 * one group means the message is done.
 */
export class SqliteStreamJanitor implements Worker {
  readonly name = 'stream-janitor';

  constructor(
    private readonly options: { messages: StreamMessageStore; clock: Clock; logger: Logger; retainMs?: number; everyMs?: number },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { messages, clock, logger, retainMs = 3_600_000, everyMs = 60_000 } = this.options;
    while (!signal.aborted) {
      const deleted = messages.prune(clock.now() - retainMs);
      if (deleted > 0) logger.debug({ deleted }, 'pruned committed stream messages');
      await pause(everyMs, signal);
    }
  }
}
