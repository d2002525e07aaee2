// What must hold after every fault of the suite, checked on the real parts: each core's store file,
// the receiver's verified webhooks, each core's /metrics and the broker's committed offsets.
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { expect } from 'vitest';
import { CONSUMER_POSITIONS } from '../../src/roles/metric-sources.js';
import type { Store } from '../../src/store/store.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN } from '../helpers/gateway.js';
import type { Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

/** One core of the deployment, as the checks see it: its store file, read beside it, and its address. */
export interface CoreView {
  store: Store;
  /** Events emitted while the companies were set up, before each had its endpoint: they have no delivery. */
  setupEvents: number;
  /** The core's own base URL, for its /metrics. */
  baseUrl: string;
}

/** What the checks read: every core of the deployment and the receiver of its webhooks. */
export interface Deployment {
  receiver: Receiver;
  coreViews(): CoreView[];
}

/** What the checks ask of the load: the callbacks answered 200, and those whose webhook has not arrived. */
export interface AcceptedLoad {
  readonly accepted: readonly { channelId: number; externalId: string }[];
  undelivered(): readonly unknown[];
}

export interface QuietReport {
  accepted: number;
  events: number;
  webhooks: number;
  /** Webhooks that arrived more than once (each copy with its event's webhook-id and body). */
  duplicates: number;
  /** The broker's committed offsets read so far: successful reads, failed ones. */
  offsetReads: { ok: number; failed: number };
}

/**
 * With the load stopped: waits until the pipeline is idle, then asserts that every accepted
 * callback is stored once (on one core), every stored event reached the receiver (verified, under
 * its own webhook-id, copies identical), nothing is pending (outbox, deliveries, consumer lag) and
 * no committed offset went back, as read by the watcher after the pipeline went idle.
 */
export async function assertQuiet(
  deployment: Deployment,
  load: AcceptedLoad,
  offsets: OffsetWatcher,
  timeoutMs: number,
): Promise<QuietReport> {
  const { receiver } = deployment;
  const cores = deployment.coreViews();
  await eventually('every accepted callback announced by webhook', () => load.undelivered().length === 0, timeoutMs);
  await eventually(
    'outbox published and every delivery delivered on every core',
    () =>
      cores.every(
        ({ store }) => store.outbox.lag().pending === 0 && store.deliverySearch.count({ status: 'pending' }) === 0,
      ),
    timeoutMs,
  );
  await eventually(
    'no consumer lag on any stream of any core',
    async () => (await Promise.all(cores.map(consumerLag))).flat().every((line) => line.endsWith(' 0')),
    timeoutMs,
  );

  const stored = cores.map(({ store }) =>
    store.db.prepare<[number, string], { n: number }>(
      'SELECT count(*) AS n FROM messages WHERE channel_id = ? AND external_id = ?',
    ),
  );
  const lost = load.accepted.filter(
    (a) => stored.reduce((n, statement) => n + statement.get(a.channelId, a.externalId)!.n, 0) !== 1,
  );
  expect(
    lost.map((a) => a.externalId),
    'accepted callbacks without their message (or stored more than once)',
  ).toEqual([]);

  // The events of the setup (channels created before their company had an endpoint) have no delivery.
  const eventsByCore = cores.map((core) => emittedEvents(core.store).slice(core.setupEvents));
  const events = eventsByCore.flat();
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
  for (const [i, core] of cores.entries()) {
    expect(core.store.deliverySearch.count({ status: 'delivered' }), `core ${i}: deliveries delivered`).toBe(
      eventsByCore[i]!.length,
    );
    expect(core.store.deliverySearch.count({}), `core ${i}: deliveries`).toBe(eventsByCore[i]!.length);
  }
  await offsets.readAfter(Date.now(), timeoutMs);
  expect(offsets.regressions, 'committed offsets that went back').toEqual([]);
  return {
    accepted: load.accepted.length,
    events: events.length,
    webhooks: receiver.received.length,
    duplicates: [...copies.values()].filter((n) => n > 1).length,
    offsetReads: { ok: offsets.reads, failed: offsets.failedReads },
  };
}

/** A core's gateway_stream_lag_messages samples (Kafka: end offsets minus committed offsets). */
async function consumerLag(core: CoreView): Promise<string[]> {
  const response = await fetch(`${core.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  }).catch(() => null);
  if (response === null || response.status !== 200) return ['unanswered 1'];
  const lines = (await response.text()).split('\n').filter((l) => l.startsWith('gateway_stream_lag_messages{'));
  return lines.length === CONSUMER_POSITIONS.length ? lines : ['incomplete 1'];
}

/**
 * Reads every consumer group's committed offsets from the broker twice a second for as long as the
 * suite runs, and keeps each time one went back (a commit of a member whose partition moved on).
 * While the broker is away the reads fail; they are counted, and `readAfter` fails unless a read
 * succeeds once the pipeline is idle, so "no offset went back" never rests on reads that failed.
 */
export class OffsetWatcher {
  readonly regressions: string[] = [];
  /** Reads that fetched every group's offsets, and reads that failed. */
  reads = 0;
  failedReads = 0;
  private lastError = '';
  /** When the latest successful read started, and how many committed offsets (≥ 0) it found. */
  private lastReadStartedAt = 0;
  private lastCommitted = 0;
  private readonly highest = new Map<string, number>();
  private admin: Admin | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading = false;

  /** `namespaces`: the topic prefix of each shard (`''` for a single core). */
  constructor(
    private readonly brokers: string,
    private readonly namespaces: readonly string[] = [''],
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.read(), 500);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    while (this.reading) await new Promise((resolve) => setTimeout(resolve, 50));
    await this.admin?.disconnect().catch(() => {});
  }

  /**
   * Waits for a read that started at `since` or later and succeeded, and asserts that it found
   * committed offsets: the regressions check then covers the offsets as they stand now.
   */
  async readAfter(since: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.lastReadStartedAt < since) {
      if (Date.now() > deadline)
        throw new Error(
          `no read of the committed offsets succeeded in the ${timeoutMs} ms after the pipeline went idle (${this.reads} reads succeeded in all, ${this.failedReads} failed; last failure: ${this.lastError || 'none'})`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(
      this.lastCommitted,
      'committed offsets found by the latest read (none: it read the wrong groups)',
    ).toBeGreaterThan(0);
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    const startedAt = Date.now();
    try {
      this.admin ??= await connectAdmin(this.brokers);
      let committed = 0;
      for (const namespace of this.namespaces) {
        for (const { stream, group } of CONSUMER_POSITIONS) {
          const groupId = `${namespace}${group}.${stream}`;
          const [topic] = await this.admin.fetchOffsets({ groupId, topics: [`${namespace}${stream}`] });
          for (const { partition, offset } of topic?.partitions ?? []) {
            const key = `${groupId}/${partition}`;
            const now = Number(offset);
            const before = this.highest.get(key) ?? -1;
            if (now >= 0) committed += 1;
            if (now >= 0 && now < before) this.regressions.push(`${key}: ${before} -> ${now}`);
            this.highest.set(key, Math.max(before, now));
          }
        }
      }
      this.reads += 1;
      this.lastReadStartedAt = startedAt;
      this.lastCommitted = committed;
    } catch (error) {
      this.failedReads += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
      await this.admin?.disconnect().catch(() => {});
      this.admin = null;
    } finally {
      this.reading = false;
    }
  }
}

/**
 * An admin client that tries each call up to three times, 100 ms apart: a client's first call
 * finds no broker in its pool until a metadata refresh, which kafkajs makes between tries.
 */
async function connectAdmin(brokers: string): Promise<Admin> {
  const admin = new Kafka({
    clientId: 'fault-suite-offsets',
    brokers: [brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100 },
  }).admin();
  await admin.connect();
  return admin;
}
