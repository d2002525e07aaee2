import type { BrokerDestination } from '../../../schemas/objects/destination.js';
import type { SsrfGuard } from '../../net/ssrf.js';
import { failed, masked, type BrokerAnswer, type BrokerMessage, type BrokerSender } from './destination.js';
import { KafkaSender } from './kafka.js';
import { RabbitmqSender } from './rabbitmq.js';
import { SqsSender } from './sqs.js';

/** How long a broker connection no attempt used stays open. */
const IDLE_CLOSE_MS = 60_000;

interface Pooled {
  /** The settings the sender was opened with: other settings (the endpoint changed) open another. */
  settings: string;
  sender: BrokerSender;
  timer: NodeJS.Timeout | undefined;
  busy: number;
}

/**
 * The broker connections of a poster, one per endpoint: opened at its first attempt, kept while
 * attempts come, closed once idle for a minute or as soon as the endpoint's settings change.
 * Every connection goes through the SSRF guard, like every webhook.
 */
export class BrokerDestinations {
  private readonly pool = new Map<number, Pooled>();

  constructor(
    private readonly guard: SsrfGuard,
    private readonly idleMs = IDLE_CLOSE_MS,
  ) {}

  async send(endpointId: number, destination: BrokerDestination, message: BrokerMessage): Promise<BrokerAnswer> {
    const pooled = this.senderOf(endpointId, destination);
    clearTimeout(pooled.timer);
    pooled.busy += 1;
    try {
      const answer = await pooled.sender.send(message);
      return { ...answer, error: answer.error === null ? null : masked(answer.error, destination) };
    } catch (error) {
      return failed(masked(error instanceof Error ? error.message : String(error), destination));
    } finally {
      pooled.busy -= 1;
      if (pooled.busy === 0 && this.pool.get(endpointId) === pooled) {
        pooled.timer = setTimeout(() => this.drop(endpointId, pooled), this.idleMs);
        pooled.timer.unref();
      }
    }
  }

  private senderOf(endpointId: number, destination: BrokerDestination): Pooled {
    const settings = JSON.stringify(destination);
    const current = this.pool.get(endpointId);
    if (current !== undefined && current.settings === settings) return current;
    if (current !== undefined) this.drop(endpointId, current);
    const sender = senderFor(destination, this.guard);
    const pooled: Pooled = { settings, sender, timer: undefined, busy: 0 };
    this.pool.set(endpointId, pooled);
    return pooled;
  }

  private drop(endpointId: number, pooled: Pooled): void {
    clearTimeout(pooled.timer);
    if (this.pool.get(endpointId) === pooled) this.pool.delete(endpointId);
    void pooled.sender.close().catch(() => {});
  }

  /** Open connections, for tests and metrics. */
  get open(): number {
    return this.pool.size;
  }

  async close(): Promise<void> {
    const all = [...this.pool.entries()];
    this.pool.clear();
    await Promise.all(
      all.map(([, pooled]) => {
        clearTimeout(pooled.timer);
        return pooled.sender.close().catch(() => {});
      }),
    );
  }
}

function senderFor(destination: BrokerDestination, guard: SsrfGuard): BrokerSender {
  if (destination.type === 'kafka') return new KafkaSender(destination, guard);
  if (destination.type === 'sqs') return new SqsSender(destination, guard);
  return new RabbitmqSender(destination, guard);
}
