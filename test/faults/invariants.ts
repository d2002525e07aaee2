// What must hold after every fault of the suite, checked on the real parts: the core's store file,
// the receiver's verified webhooks, the core's /metrics and the broker's committed offsets.
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { expect } from 'vitest';
import { CONSUMER_POSITIONS } from '../../src/roles/metric-sources.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN } from '../helpers/gateway.js';
import { eventually } from '../helpers/wait.js';
import type { CallbackLoad } from './callback-load.js';
import type { FaultCluster } from './fault-cluster.js';

export interface QuietReport {
  accepted: number;
  events: number;
  webhooks: number;
  /** Webhooks that arrived more than once (each copy with its event's webhook-id and body). */
  duplicates: number;
}

/**
 * With the load stopped: waits until the pipeline is idle, then asserts that every accepted
 * callback is stored, every stored event reached the receiver (verified, under its own
 * webhook-id, copies identical), nothing is pending (outbox, deliveries, consumer lag) and no
 * committed offset went back.
 */
export async function assertQuiet(
  cluster: FaultCluster,
  load: CallbackLoad,
  offsets: OffsetWatcher,
  timeoutMs: number,
): Promise<QuietReport> {
  const { store, receiver } = cluster;
  await eventually('every accepted callback announced by webhook', () => load.undelivered().length === 0, timeoutMs);
  await eventually(
    'outbox published and every delivery delivered',
    () => store.outbox.lag().pending === 0 && store.deliverySearch.count({ status: 'pending' }) === 0,
    timeoutMs,
  );
  await eventually(
    'no consumer lag on any stream',
    async () => (await consumerLag(cluster)).every((line) => line.endsWith(' 0')),
    timeoutMs,
  );

  const stored = store.db.prepare<[number, string], { n: number }>(
    'SELECT count(*) AS n FROM messages WHERE channel_id = ? AND external_id = ?',
  );
  const lost = load.accepted.filter((a) => stored.get(a.channelId, a.externalId)!.n !== 1);
  expect(
    lost.map((a) => a.externalId),
    'accepted callbacks without their message',
  ).toEqual([]);

  // The events of the setup (channels created before their company had an endpoint) have no delivery.
  const events = emittedEvents(store).slice(cluster.setupEvents);
  const bodies = new Map(events.map((e) => [e.id, JSON.stringify(e.body)]));
  const copies = new Map<string, number>();
  for (const hook of receiver.received) {
    expect(bodies.get(hook.id), `a webhook ${hook.id} of no stored event, or another body under its id`).toBe(
      JSON.stringify(hook.body),
    );
    expect(hook.verifiedBy.length, `webhook ${hook.id} verified by its endpoint's secret`).toBe(1);
    copies.set(hook.id, (copies.get(hook.id) ?? 0) + 1);
  }
  expect(
    events.filter((e) => !copies.has(e.id)).map((e) => e.id),
    'stored events never delivered',
  ).toEqual([]);
  expect(store.deliverySearch.count({ status: 'delivered' })).toBe(events.length);
  expect(store.deliverySearch.count({})).toBe(events.length);
  expect(offsets.regressions, 'committed offsets that went back').toEqual([]);
  return {
    accepted: load.accepted.length,
    events: events.length,
    webhooks: receiver.received.length,
    duplicates: [...copies.values()].filter((n) => n > 1).length,
  };
}

/** The core's gateway_stream_lag_messages samples (Kafka: end offsets minus committed offsets). */
async function consumerLag(cluster: FaultCluster): Promise<string[]> {
  const response = await fetch(`${cluster.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  }).catch(() => null);
  if (response === null || response.status !== 200) return ['unanswered 1'];
  const lines = (await response.text()).split('\n').filter((l) => l.startsWith('gateway_stream_lag_messages{'));
  return lines.length === CONSUMER_POSITIONS.length ? lines : ['incomplete 1'];
}

/**
 * Reads every consumer group's committed offsets from the broker twice a second for as long as the
 * suite runs, and keeps each time one went back (a commit of a member whose partition moved on).
 * While the broker is away the reads fail and are skipped.
 */
export class OffsetWatcher {
  readonly regressions: string[] = [];
  private readonly highest = new Map<string, number>();
  private admin: Admin | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  reads = 0;

  constructor(private readonly brokers: string) {}

  start(): void {
    this.timer = setInterval(() => void this.read(), 500);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    while (this.reading) await new Promise((resolve) => setTimeout(resolve, 50));
    await this.admin?.disconnect().catch(() => {});
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      this.admin ??= await connectAdmin(this.brokers);
      for (const { stream, group } of CONSUMER_POSITIONS) {
        const groupId = `${group}.${stream}`;
        const [topic] = await this.admin.fetchOffsets({ groupId, topics: [stream] });
        for (const { partition, offset } of topic?.partitions ?? []) {
          const key = `${groupId}/${partition}`;
          const now = Number(offset);
          const before = this.highest.get(key) ?? -1;
          if (now >= 0 && now < before) this.regressions.push(`${key}: ${before} -> ${now}`);
          this.highest.set(key, Math.max(before, now));
        }
      }
      this.reads += 1;
    } catch {
      await this.admin?.disconnect().catch(() => {});
      this.admin = null;
    } finally {
      this.reading = false;
    }
  }
}

async function connectAdmin(brokers: string): Promise<Admin> {
  const admin = new Kafka({
    clientId: 'fault-suite-offsets',
    brokers: [brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin();
  await admin.connect();
  return admin;
}
