import { pause, type IncomingMessage } from './stream.js';

/**
 * Runs handlers with per-key order and a global in-flight bound: a message waits only behind
 * earlier messages of its own key. Both stream implementations hand their fetched messages here;
 * `onDone` fires when a handler resolved (commit); `onFailed` reports a throw before the retry.
 */
export class KeyedRunner<T extends IncomingMessage> {
  private readonly tails = new Map<string, Promise<void>>();
  private inFlight = 0;
  private readonly waiters: (() => void)[] = [];
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly handler: (message: T) => Promise<void>,
    private readonly maxInFlight: number,
    private readonly onDone: (message: T) => void | Promise<void>,
    private readonly onFailed: (message: T, error: unknown) => void,
  ) {}

  get size(): number {
    return this.inFlight;
  }

  get full(): boolean {
    return this.inFlight >= this.maxInFlight;
  }

  /** Resolves when there is room for one more message. */
  async room(): Promise<void> {
    while (this.full && !this.stopped) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  submit(message: T): void {
    this.inFlight += 1;
    const previous = this.tails.get(message.key) ?? Promise.resolve();
    const run = previous.then(async () => {
      // A handler that throws (its own dependency is down) gets the message again after a
      // growing pause, in place, so later messages of its key stay behind it.
      for (let failures = 0; !this.stopped; failures += 1) {
        try {
          await this.handler(message);
          if (!this.stopped) await this.onDone(message);
          return;
        } catch (error) {
          if (this.stopped) return;
          this.onFailed(message, error);
          await pause(Math.min(250 * 2 ** failures, 10_000), this.abort.signal);
        }
      }
    });
    const tail = run.finally(() => {
      this.inFlight -= 1;
      if (this.tails.get(message.key) === tail) this.tails.delete(message.key);
      this.waiters.splice(0).forEach((wake) => wake());
    });
    this.tails.set(message.key, tail);
  }

  /** Resolves once no handler is running (used by a graceful stop after fetching ended). */
  async idle(): Promise<void> {
    while (this.inFlight > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Abandons what is running: nothing more is committed (a stop behaves like a crash). */
  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.waiters.splice(0).forEach((wake) => wake());
  }
}
