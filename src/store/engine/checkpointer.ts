import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../../lib/threads.js';
import type { Logger } from '../../log.js';
import type { Db } from './db.js';

/** What the checkpoint thread is started with (src/store/engine/checkpoint-thread.ts). */
export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
}

/** One checkpoint the thread ran: the WAL's frames, and how many of them are now in the database file. */
export interface CheckpointReport {
  walFrames: number;
  checkpointed: number;
  durationMs: number;
}

/**
 * SQLite's own checkpoints run inside the COMMIT that crossed `wal_autocheckpoint` pages: on the
 * event loop, copying every changed page into the database file and syncing it, 5 to 15 ms during
 * which no callback is answered and no webhook goes out (the tail of the fixed-rate benchmark).
 * With the checkpointer, a worker thread with its own connection runs a PASSIVE checkpoint every
 * `intervalMs` instead: it never blocks the writer, and a COMMIT only appends to the WAL. The
 * event loop's connection keeps SQLite's checkpoint on commit as a safety net for a WAL the
 * thread cannot keep small (`SAFETY_NET_PAGES`, 64 MiB), and falls back to SQLite's default
 * (1000 pages) if the thread dies.
 */
export class WalCheckpointer {
  /** Pages the WAL of the event loop's connection may hold before it checkpoints on commit itself. */
  static readonly SAFETY_NET_PAGES = 16_384;
  private readonly thread: Worker;
  private closing = false;
  private readonly exited: Promise<void>;

  constructor(
    private readonly db: Db,
    file: string,
    intervalMs: number,
    private readonly logger: Logger,
    private readonly onCheckpoint: (report: CheckpointReport) => void = () => {},
  ) {
    db.pragma(`wal_autocheckpoint = ${WalCheckpointer.SAFETY_NET_PAGES}`);
    const data: CheckpointThreadData = { file, intervalMs };
    // The thread runs one statement now and then: the smallest heap V8 takes keeps the daemon's memory budget.
    this.thread = startWorkerThread(THREAD_SCRIPT, {
      workerData: data,
      name: 'wal-checkpointer',
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // It must not keep a stopping process alive.
    this.thread.unref();
    this.thread.on('message', (report: CheckpointReport) => this.onCheckpoint(report));
    this.thread.on('error', (error) => this.fallBack('the WAL checkpoint thread failed', error));
    this.exited = new Promise<void>((resolve) =>
      this.thread.once('exit', (code) => {
        if (!this.closing) this.fallBack(`the WAL checkpoint thread exited (code ${code})`);
        resolve();
      }),
    );
  }

  /** Stops the thread (the store's last close checkpoints what is left). */
  async close(): Promise<void> {
    if (this.closing) return this.exited;
    this.closing = true;
    // Held until it exited: an unreferenced thread is no reason to stay alive, and a process with
    // nothing else left would end before the stop finished (a daemon exited with code 13, its
    // shutdown unsettled).
    this.thread.ref();
    this.thread.postMessage('stop');
    await this.exited;
  }

  private fallBack(why: string, error?: unknown): void {
    if (this.closing) return;
    this.closing = true;
    this.logger.error({ err: error }, `${why}; the store checkpoints on commit again (SQLite's default)`);
    if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    this.thread.ref();
    void this.thread.terminate();
  }
}

// Run from the sources (vitest), the thread is the built one: `npm test` builds first.
const THREAD_SCRIPT = import.meta.url.endsWith('.ts')
  ? new URL('../../../dist/src/store/engine/checkpoint-thread.js', import.meta.url)
  : new URL('./checkpoint-thread.js', import.meta.url);
