/**
 * The front's own Prometheus metrics (GET /metrics of a `--role front` process): per shard, the
 * requests proxied and how they ended, the time to the shard's response head, and whether the front
 * holds the shard up; plus the process's default metrics. A front has no store and no streams, so
 * none of the core's gauges apply.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type ProxyOutcome = 'answered' | 'unavailable' | 'failed';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class FrontMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'shard' | 'route' | 'outcome'>;
  private readonly upstream: Histogram<'shard'>;
  private readonly shardUp: Gauge<'shard'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'gateway_front_proxied_requests_total',
      help: 'Requests the front sent to a shard, by shard, route kind (id, input, upload, any, home, create, first, list, view, and session: a console session checked at its home shard) and outcome (answered: the shard answered; unavailable: the shard was down, answered 503; failed: the exchange broke after it began).',
      labelNames: ['shard', 'route', 'outcome'],
      registers,
    });
    this.upstream = new Histogram({
      name: 'gateway_front_upstream_seconds',
      help: "Time from sending a request to a shard to the shard's response head, by shard.",
      labelNames: ['shard'],
      buckets: BUCKETS,
      registers,
    });
    this.shardUp = new Gauge({
      name: 'gateway_front_shard_up',
      help: 'Whether the front holds the shard up (1) or down (0: its requests answer 503 until a probe reaches it).',
      labelNames: ['shard'],
      registers,
    });
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
  }

  proxied(shard: number, route: string, outcome: ProxyOutcome, seconds?: number): void {
    this.requests.inc({ shard: String(shard), route, outcome });
    if (seconds !== undefined) this.upstream.observe({ shard: String(shard) }, seconds);
  }

  shardState(shard: number, up: boolean): void {
    this.shardUp.set({ shard: String(shard) }, up ? 1 : 0);
  }

  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
