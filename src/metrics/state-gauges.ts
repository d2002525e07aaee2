import { Counter, Gauge, type Registry } from 'prom-client';
import type { StreamClientHealth, StreamClientKind, StreamLag } from '../streams/stream.js';

/** What the scrape-time gauges read: the store and the streams of this process (null: not in this role). */
export interface MetricSources {
  outbox?: () => { pending: number; oldestCreatedAt: number | null };
  /** Uncommitted, due messages per stream and consumer group. */
  streamLag?: () => Promise<readonly StreamLag[]>;
  /** Webhook endpoints the gateway disabled (410 Gone, or failing for too long). */
  endpointsDisabled?: () => number;
  /** Kafka: the stream clients being recreated now and how many were. */
  streamClients?: () => StreamClientHealth;
}

const STREAM_CLIENT_KINDS: readonly StreamClientKind[] = ['producer', 'consumer'];

/**
 * The gauges that describe state (outbox, stream lag, Kafka clients, disabled endpoints): each reads
 * its source when scraped, never kept up to date; one without a source in this process stays empty.
 */
export function registerStateGauges(registers: Registry[], sources: () => MetricSources): void {
  new Gauge({
    name: 'gateway_outbox_pending_rows',
    help: 'Outbox rows not yet published to their stream.',
    registers,
    collect() {
      const outbox = sources().outbox;
      if (outbox) this.set(outbox().pending);
    },
  });
  new Gauge({
    name: 'gateway_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox row not yet published (0 when none): the relay lag.',
    registers,
    collect() {
      const outbox = sources().outbox;
      if (!outbox) return;
      const { oldestCreatedAt } = outbox();
      this.set(oldestCreatedAt === null ? 0 : Math.max(0, Date.now() - oldestCreatedAt) / 1000);
    },
  });
  new Gauge({
    name: 'gateway_stream_lag_messages',
    help: 'Messages of a stream due and not yet committed by the consumer group (Kafka: end offset minus committed offset).',
    labelNames: ['stream', 'group'],
    registers,
    async collect() {
      const lag = sources().streamLag;
      if (!lag) return;
      this.reset();
      // A broker that cannot answer leaves the gauge empty; the rest of the scrape still works.
      const rows = await lag().catch(() => []);
      for (const row of rows) this.set({ stream: row.stream, group: row.group }, row.messages);
    },
  });
  new Counter({
    name: 'gateway_kafka_client_recreations_total',
    help: 'Kafka clients of this process closed and replaced by a new one (a producer whose send failed, a consumer that crashed or could not start).',
    labelNames: ['client'],
    registers,
    collect() {
      const clients = sources().streamClients;
      if (!clients) return;
      const { recreated } = clients();
      this.reset();
      for (const client of STREAM_CLIENT_KINDS) this.inc({ client }, recreated[client]);
    },
  });
  new Gauge({
    name: 'gateway_kafka_clients_recovering',
    help: 'Kafka clients of this process being recreated now: from their failure until the new one works (a producer connected, a consumer joined its group).',
    labelNames: ['client'],
    registers,
    collect() {
      const clients = sources().streamClients;
      if (!clients) return;
      const { recovering } = clients();
      for (const client of STREAM_CLIENT_KINDS)
        this.set({ client }, recovering.filter((r) => r.client === client).length);
    },
  });
  new Gauge({
    name: 'gateway_webhook_endpoints_disabled',
    help: 'Webhook endpoints the gateway disabled (410 Gone, or no success for GATEWAY_WEBHOOK_DISABLE_AFTER).',
    registers,
    collect() {
      const disabled = sources().endpointsDisabled;
      if (disabled) this.set(disabled());
    },
  });
}
