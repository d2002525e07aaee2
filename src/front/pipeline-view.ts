/**
 * GET /admin/pipeline through the front: the pipeline of the whole cluster. Each core answers its
 * own shard's view (outbox, stream lag, attempts of the last hour); the front adds them up, labels
 * each stream with its shard and lists every process it knows of with its role, shard, health and
 * lag: the cores (GATEWAY_SHARD_URLS), the workers (GATEWAY_WORKER_URLS, src/front/worker-probe.ts)
 * and itself. A shard that is down is a row that says so, not an error of the page.
 */
import { CONSUMER_GROUP } from '../streams/catalog.js';

/** One shard's own GET /admin/pipeline answer (src/admin/endpoints.ts). */
export interface ShardPipeline {
  outbox: { pending: number; oldest_created_at: string | null; lag_ms: number };
  streams: { stream: string; group: string; messages: number }[];
  attempts: {
    delivered_per_second: number;
    error_rate: number | null;
    per_minute: { start: string; delivered: number; failed: number }[];
  };
}

/** How a process answered its health check: `ok`; `recovering` (a Kafka client being recreated); `unhealthy` (it answered, not 200); `down` (no answer). */
export type ProcessStatus = 'ok' | 'degraded' | 'recovering' | 'unhealthy' | 'down';

export interface ProcessRow {
  role: 'front' | 'core' | 'worker';
  /** A core's shard; null for a front or a worker, which serve every shard. */
  shard: number | null;
  address: string;
  status: ProcessStatus;
  /** A core's relay lag: how old its oldest outbox row not yet published is (0 when none waits). */
  outbox_lag_ms: number | null;
  /**
   * Messages waiting for the process's consumer groups: a core's own (attempt records, inbound
   * messages) on its shard; for a worker, the dispatcher's and the senders' on every shard, which all
   * the workers share.
   */
  messages_waiting: number | null;
}

/** What the front knows of one shard: its health status code (null: unreachable) and its pipeline answer (null: none). */
export interface ShardState {
  shard: number;
  url: string;
  health: number | null;
  pipeline: ShardPipeline | null;
}

export interface WorkerState {
  address: string;
  status: Exclude<ProcessStatus, 'degraded'>;
}

export interface ClusterPipeline extends ShardPipeline {
  streams: (ShardPipeline['streams'][number] & { shard: number })[];
  processes: ProcessRow[];
}

const WORKER_GROUPS: ReadonlySet<string> = new Set([CONSUMER_GROUP.dispatcher, CONSUMER_GROUP.sender]);

function waiting(streams: ShardPipeline['streams'], groups: (group: string) => boolean): number {
  return streams.filter((s) => groups(s.group)).reduce((sum, s) => sum + s.messages, 0);
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** The cluster's pipeline from what each shard, each worker and the front itself said. */
export function mergePipeline(
  shards: readonly ShardState[],
  workers: readonly WorkerState[],
  front: { address: string },
): ClusterPipeline {
  const views = shards.flatMap((s) => (s.pipeline === null ? [] : [{ shard: s.shard, view: s.pipeline }]));
  const oldest = views
    .map(({ view }) => view.outbox.oldest_created_at)
    .filter((at): at is string => at !== null)
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  // The shards' minutes line up (whole minutes of the clock); they are summed minute by minute.
  const minutes = new Map<string, { start: string; delivered: number; failed: number }>();
  for (const { view } of views)
    for (const m of view.attempts.per_minute) {
      const sum = minutes.get(m.start) ?? { start: m.start, delivered: 0, failed: 0 };
      sum.delivered += m.delivered;
      sum.failed += m.failed;
      minutes.set(m.start, sum);
    }
  const perMinute = [...minutes.values()].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const attempted = perMinute.reduce((sum, m) => sum + m.delivered + m.failed, 0);
  const failed = perMinute.reduce((sum, m) => sum + m.failed, 0);
  const allStreams = views.flatMap(({ shard, view }) => view.streams.map((s) => ({ shard, ...s })));
  const workerWaiting = waiting(allStreams, (group) => WORKER_GROUPS.has(group));
  const coreStatus = (health: number | null): ProcessStatus =>
    health === 200 ? 'ok' : health === null ? 'down' : 'unhealthy';
  return {
    outbox: {
      pending: views.reduce((sum, { view }) => sum + view.outbox.pending, 0),
      oldest_created_at: oldest ?? null,
      lag_ms: Math.max(0, ...views.map(({ view }) => view.outbox.lag_ms)),
    },
    streams: allStreams,
    attempts: {
      delivered_per_second: round(
        views.reduce((sum, { view }) => sum + view.attempts.delivered_per_second, 0),
        2,
      ),
      error_rate: attempted === 0 ? null : round(failed / attempted, 4),
      per_minute: perMinute,
    },
    processes: [
      {
        role: 'front',
        shard: null,
        address: front.address,
        status: shards.every((s) => s.health === 200) ? 'ok' : 'degraded',
        outbox_lag_ms: null,
        messages_waiting: null,
      },
      ...shards.map((s): ProcessRow => ({
        role: 'core',
        shard: s.shard,
        address: s.url,
        status: coreStatus(s.health),
        outbox_lag_ms: s.pipeline?.outbox.lag_ms ?? null,
        messages_waiting: s.pipeline === null ? null : waiting(s.pipeline.streams, (g) => g === CONSUMER_GROUP.core),
      })),
      ...workers.map((w): ProcessRow => ({
        role: 'worker',
        shard: null,
        address: w.address,
        status: w.status,
        outbox_lag_ms: null,
        messages_waiting: w.status === 'down' ? null : workerWaiting,
      })),
    ],
  };
}
