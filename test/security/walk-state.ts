// What "nothing of either account changed" compares: every row of every table of every store (the
// daemon's, or each shard's of a cluster), and every message the outboxes published.
import { createHash } from 'node:crypto';
import type { TestGateway } from '../helpers/gateway.js';
import type { Store } from '../../src/store/store.js';
import { emittedEvents } from '../helpers/events.js';
import { publishedBy } from '../record-published.js';
import { eventually } from '../helpers/wait.js';

/**
 * Columns that change on a request that may change nothing, each with why it is bookkeeping:
 * - api_tokens.last_used_at: the time of a token's last use (written at most once a minute);
 * - web_sessions.expires_at: a session's idle end, moved by each use (at most once a minute);
 * - company_event_watch, the whole table: which companies a live stream watched, written when a
 *   stream of the caller's own company opens (a read) and at most once a minute while it lasts.
 * Rate limits, the admin-token throttle and request logs are in memory or in the log, not in the store.
 */
const BOOKKEEPING: Record<string, string[]> = {
  api_tokens: ['last_used_at'],
  web_sessions: ['expires_at'],
};
const BOOKKEEPING_TABLES = new Set(['company_event_watch']);

export type StoreDigest = Record<string, { rows: number; sha256: string }>;

/** One digest per table of every store (`<store>:<table>`): its rows (bookkeeping columns left out) in a fixed order. */
export function storeDigest(gw: TestGateway): StoreDigest {
  const digest: StoreDigest = {};
  gw.everyStore().forEach((store, index) => {
    for (const [table, value] of Object.entries(tableDigests(store))) digest[`${index}:${table}`] = value;
  });
  return digest;
}

function tableDigests(store: Store): StoreDigest {
  const db = store.db;
  const tables = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((t) => t.name)
    .filter((name) => !BOOKKEEPING_TABLES.has(name));
  const digest: StoreDigest = {};
  for (const table of tables) {
    const rows = db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[];
    const kept = rows
      .map((row) => {
        for (const column of BOOKKEEPING[table] ?? []) delete row[column];
        return JSON.stringify(row);
      })
      .sort();
    digest[table] = { rows: kept.length, sha256: createHash('sha256').update(kept.join('\n')).digest('hex') };
  }
  return digest;
}

/** How many messages each store's outbox published (every stream) and how many events it took. */
export function publishedCounts(gw: TestGateway): { published: number; events: number }[] {
  return gw
    .everyStore()
    .map((store) => ({ published: publishedBy.get(store.outbox)?.length ?? 0, events: emittedEvents(store).length }));
}

/**
 * Waits until the pipeline has nothing left to do: every outbox row published, every stream message
 * consumed, no delivery pending and every v1 job finished. Only then is a digest a still picture.
 */
export async function settled(gw: TestGateway): Promise<void> {
  const waiting = () => gw.everyStore().map(waitingIn);
  try {
    // A ceiling for a loaded machine, not a measurement.
    await eventually(
      'the pipeline to settle',
      () => waiting().every((counts) => Object.values(counts).every((n) => n === 0)),
      90_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: still waiting ${JSON.stringify(waiting())}`, { cause: error });
  }
}

/** What one store has left to do. */
function waitingIn(store: Store): Record<string, number> {
  return store.db
    .prepare(
      `SELECT (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS outbox,
                (SELECT count(*) FROM stream_messages) AS stream_messages,
                (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS deliveries,
                (SELECT count(*) FROM v1_jobs WHERE state = 'trying_deliver') AS jobs,
                (SELECT count(*) FROM replay_tasks WHERE status IN ('queued', 'running')) AS replays`,
    )
    .get() as Record<string, number>;
}
