import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PROVIDERS } from '../../schemas/v1/channels.js';
import type { AttemptRecord } from '../streams/catalog.js';
import type { StreamLag } from '../streams/stream.js';
import { AppError } from '../errors/errors.js';
import { AttemptHistory, type AttemptMinute } from './attempt-history.js';
import { registerStateGauges, type MetricSources } from './state-gauges.js';

/** Provider codes that may appear as a label; anything else in a callback path is `other` (bounded label values). */
const PROVIDER_LABELS: ReadonlySet<string> = new Set(PROVIDERS);

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELIVERY_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400,
];

/**
 * Every Prometheus metric of the daemon (docs/metrics.md), in one registry per running gateway.
 * Other modules call the small recording methods below; the gauges that describe state (outbox,
 * stream lag, disabled endpoints) are read from their sources when scraped, never kept up to date
 * (src/metrics/state-gauges.ts).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly callbacksAccepted: Counter<'provider' | 'duplicate'>;
  private readonly callbacksRejected: Counter<'provider' | 'reason'>;
  private readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly attempts: Counter<'outcome' | 'trigger'>;
  private readonly retriesScheduled: Counter;
  private readonly deliveryLatency: Histogram<'trigger'>;
  private readonly endpointStateChanges: Counter<'state' | 'by'>;
  private readonly deliveriesFailed: Counter<'target' | 'reason'>;
  private readonly outboxPublished: Counter<'stream'>;
  private readonly checkpointDuration: Histogram;
  private readonly walFrames: Gauge;
  private readonly authFailures: Counter<'credential' | 'face'>;
  private readonly authThrottles: Counter<'face'>;
  private readonly authPacing: Counter;
  private sources: MetricSources = {};
  private readonly history = new AttemptHistory();

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.callbacksAccepted = new Counter({
      name: 'gateway_callbacks_accepted_total',
      help: 'Provider callbacks answered 200 after their transaction committed; duplicate="true" for repeats that changed nothing.',
      labelNames: ['provider', 'duplicate'],
      registers,
    });
    this.callbacksRejected = new Counter({
      name: 'gateway_callbacks_rejected_total',
      help: 'Provider callbacks refused, by the error code answered (unauthorized, not_found, validation_failed, ...).',
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'HTTP request latency by route template (unmatched paths are route="unmatched").',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: 'gateway_webhook_attempts_total',
      help: 'Webhook delivery attempts recorded by the core, by outcome (delivered, retry, failed, gone) and trigger (auto, manual).',
      labelNames: ['outcome', 'trigger'],
      registers,
    });
    this.retriesScheduled = new Counter({
      name: 'gateway_webhook_retries_scheduled_total',
      help: 'Automatic retries scheduled after a failed attempt.',
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'gateway_webhook_delivery_latency_seconds',
      help: 'From the creation of an event to the 2xx answer of the endpoint that received it.',
      labelNames: ['trigger'],
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    this.endpointStateChanges = new Counter({
      name: 'gateway_webhook_endpoint_state_changes_total',
      help: 'Webhook endpoints disabled or enabled again (state), by the gateway itself (410, failing too long) or through the api, admin or portal (by).',
      labelNames: ['state', 'by'],
      registers,
    });
    this.deliveriesFailed = new Counter({
      name: 'gateway_webhook_deliveries_failed_total',
      help: 'Deliveries failed for good, to a company endpoint or the operator webhook (target), by reason: attempts_exhausted, gone (410), endpoint_unavailable (disabled, removed or unconfigured while a retry waited).',
      labelNames: ['target', 'reason'],
      registers,
    });
    this.outboxPublished = new Counter({
      name: 'gateway_outbox_published_total',
      help: 'Messages the outbox relay published, by stream: events (gateway.events) and send jobs (gateway.outbound).',
      labelNames: ['stream'],
      registers,
    });
    // Every label set from the start, at 0: a rate over the first change needs a sample before it.
    for (const state of ['disabled', 'enabled'])
      for (const by of ['gateway', 'api', 'admin', 'portal']) this.endpointStateChanges.inc({ state, by }, 0);
    for (const target of ['company', 'operator'])
      for (const reason of ['attempts_exhausted', 'gone', 'endpoint_unavailable'])
        this.deliveriesFailed.inc({ target, reason }, 0);
    this.checkpointDuration = new Histogram({
      name: 'gateway_store_checkpoint_duration_seconds',
      help: 'WAL checkpoints of the checkpoint thread (GATEWAY_STORE_CHECKPOINT_INTERVAL) that copied pages into the store file.',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.walFrames = new Gauge({
      name: 'gateway_store_wal_frames',
      help: "Frames (pages) in the store's WAL at the last checkpoint of the checkpoint thread.",
      registers,
    });
    this.authFailures = new Counter({
      name: 'gateway_auth_failures_total',
      help: 'Wrong credentials presented: the admin (or metrics) token on the admin API, /metrics or the console login, and API tokens on the REST API (credential, face).',
      labelNames: ['credential', 'face'],
      registers,
    });
    this.authThrottles = new Counter({
      name: 'gateway_auth_throttled_total',
      help: 'Admin-token attempts answered 429 without being compared: the source was waiting after too many wrong tokens, or the global pacing queue was full (face).',
      labelNames: ['face'],
      registers,
    });
    this.authPacing = new Counter({
      name: 'gateway_auth_paced_total',
      help: 'Admin-token checks that waited their turn because wrong admin tokens from all sources passed GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES a minute.',
      registers,
    });
    for (const face of ['admin', 'metrics', 'console']) {
      this.authFailures.inc({ credential: 'admin', face }, 0);
      this.authThrottles.inc({ face }, 0);
    }
    this.authFailures.inc({ credential: 'api', face: 'api' }, 0);
    registerStateGauges(registers, () => this.sources);
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
  }

  /** Where the scrape-time gauges read from; set once the store and the streams are open. */
  observe(sources: MetricSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  callbackAccepted(provider: string, duplicate: boolean): void {
    this.callbacksAccepted.inc({ provider: providerLabel(provider), duplicate: String(duplicate) });
  }

  callbackRejected(provider: string, error: unknown): void {
    this.callbacksRejected.inc({
      provider: providerLabel(provider),
      reason: error instanceof AppError ? error.code : 'internal_error',
    });
  }

  /**
   * One attempt as the core records it. `eventCreatedAt` (unix ms) is asked for only for a delivered
   * one: the end-to-end latency runs from the event's creation to the end of that attempt.
   */
  attemptRecorded(attempt: AttemptRecord, eventCreatedAt: () => number | null): void {
    this.attempts.inc({ outcome: attempt.outcome, trigger: attempt.trigger });
    this.history.record(attempt.outcome === 'delivered', Date.now());
    if (attempt.outcome === 'retry' && attempt.trigger === 'auto') this.retriesScheduled.inc();
    if (attempt.outcome !== 'delivered') return;
    const created = eventCreatedAt();
    if (created !== null)
      this.deliveryLatency.observe(
        { trigger: attempt.trigger },
        Math.max(0, attempt.started_at + attempt.duration_ms - created) / 1000,
      );
  }

  /** A webhook endpoint was disabled or enabled again (committed). */
  endpointStateChanged(state: 'disabled' | 'enabled', by: 'gateway' | 'api' | 'admin' | 'portal'): void {
    this.endpointStateChanges.inc({ state, by });
  }

  /** A delivery failed for good (committed). */
  deliveryFailed(target: 'company' | 'operator', reason: 'attempts_exhausted' | 'gone' | 'endpoint_unavailable'): void {
    this.deliveriesFailed.inc({ target, reason });
  }

  /** Outbox messages whose publish committed: one increment per run of one stream. */
  published(rows: readonly { stream: string }[]): void {
    let start = 0;
    for (let i = 1; i <= rows.length; i += 1) {
      if (i < rows.length && rows[i]!.stream === rows[start]!.stream) continue;
      this.outboxPublished.inc({ stream: rows[start]!.stream }, i - start);
      start = i;
    }
  }

  /** Attempts recorded per minute over the last hour, oldest first (the console's pipeline page). */
  attemptsLastHour(now = Date.now()): AttemptMinute[] {
    return this.history.lastHour(now);
  }

  /** The stream lag the scrape reads (empty where this process has no streams to ask). */
  async streamLag(): Promise<readonly StreamLag[]> {
    return this.sources.streamLag === undefined ? [] : this.sources.streamLag();
  }

  /** One checkpoint of the checkpoint thread (src/store/engine/checkpointer.ts). */
  checkpointed(walFrames: number, durationMs: number): void {
    this.checkpointDuration.observe(durationMs / 1000);
    this.walFrames.set(walFrames);
  }

  /** A wrong credential (src/http/auth-throttle.ts). */
  authFailed(credential: 'admin' | 'api', face: 'admin' | 'metrics' | 'console' | 'api'): void {
    this.authFailures.inc({ credential, face });
  }

  /** An admin-token attempt answered 429 by the throttle. */
  authThrottled(face: 'admin' | 'metrics' | 'console' | 'api'): void {
    this.authThrottles.inc({ face });
  }

  /** An admin-token check paced by the global ceiling. */
  authPaced(): void {
    this.authPacing.inc();
  }

  /** Koa middleware timing every request by its route template (`/callbacks/:provider/:channelId`), never the raw path. */
  httpMiddleware(): Middleware {
    return async (ctx, next) => {
      const end = this.requestDuration.startTimer();
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
        end({
          method: ctx.method,
          route: route === undefined ? 'unmatched' : String(route),
          status: String(ctx.status),
        });
      }
    };
  }
}

function providerLabel(provider: string): string {
  return PROVIDER_LABELS.has(provider) ? provider : 'other';
}
