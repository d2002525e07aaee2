import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import type { Clock, StreamBus } from '../streams/stream.js';
import { aborted, type Worker } from '../workers/supervisor.js';
import { CONSUMER_GROUP, STREAM, type AttemptRecord } from './jobs.js';

/**
 * Core side of the dispatcher: records every attempt that comes back on gateway.attempts (the
 * delivery's status, the endpoint's health, auto-disable after `disableAfterMs` without success).
 */
export class AttemptRecorder implements Worker {
  readonly name = 'attempt-recorder';

  constructor(
    private readonly options: { store: Store; bus: StreamBus; clock: Clock; disableAfterMs: number; logger: Logger; metrics?: Metrics },
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const { store, bus, clock, disableAfterMs } = this.options;
    const subscription = bus.subscribe({
      stream: STREAM.attempts,
      group: CONSUMER_GROUP.core,
      handler: async (message) => {
        const attempt = message.value as AttemptRecord;
        await store.grouped(() => store.deliveries.recordAttempt(attempt, disableAfterMs, clock.now()));
        this.options.metrics?.attemptRecorded(attempt, () => store.deliveries.eventCreatedAt(attempt.delivery_id));
      },
    });
    await aborted(signal);
    await subscription.drain();
  }
}
