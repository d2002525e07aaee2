/**
 * When a feed's dispatch runs. `soon` (messages just committed) runs it once the work under way is
 * done (process.nextTick): under load a turn of the event loop first reads and handles every
 * request that came meanwhile, several ms, and a fresh message that waited for it carried that
 * wait into its webhook's latency. `next` (refilling from the log, a finished message's key) waits
 * for the next turn (setImmediate), so I/O goes on between. A dispatch asked for again before it
 * ran runs once.
 */
export class DispatchTurns {
  private nextAsked = false;
  private soonAsked = false;

  constructor(private readonly dispatch: () => void) {}

  soon(): void {
    if (this.soonAsked) return;
    this.soonAsked = true;
    process.nextTick(() => {
      this.soonAsked = false;
      this.dispatch();
    });
  }

  next(): void {
    if (this.nextAsked) return;
    this.nextAsked = true;
    setImmediate(() => {
      this.nextAsked = false;
      this.dispatch();
    });
  }
}
