/**
 * The admin answers the front builds from every live shard's (src/front/routing.ts, `view` routes):
 * the pipeline of the whole cluster and the API tokens with their last use on any shard. Unlike a
 * merged list, neither needs every shard: a shard that is down is a row marked down on the pipeline
 * page, and the tokens are on every shard. A refusal of the request itself (a wrong admin token, a
 * bad parameter, a rate limit) is the answer, as the first shard in order gave it.
 */
import type { ClusterView } from './routing.js';
import type { Merged, ShardAnswer } from './merge.js';
import { mergePipeline, type ShardPipeline } from './pipeline-view.js';
import { ShardUnavailable, type ShardSet } from './shard-set.js';
import { mergeTokens, type TokenRow } from './token-view.js';
import { probeWorkers } from './worker-probe.js';

export interface ViewSources {
  shards: ShardSet;
  /** Asks one shard the client's request; throws ShardUnavailable for a shard that is down. */
  ask: (shard: number) => Promise<ShardAnswer>;
  /** GATEWAY_WORKER_URLS. */
  workerUrls: readonly string[];
  /** The front's own address, as its row on the pipeline page names it. */
  frontAddress: string;
  /** How long the front waits for a worker's or a shard's /healthz. */
  healthTimeoutMs: number;
}

/** Statuses that refuse the request itself rather than say something of one shard. */
const REFUSALS = new Set([400, 401, 403, 404, 422, 429]);

/** Every live shard's answer (null for one that is down or went down while asked), in shard order. */
async function askLive(sources: ViewSources): Promise<(ShardAnswer | null)[]> {
  const live = new Set(sources.shards.live());
  if (live.size === 0) throw new ShardUnavailable(0);
  return Promise.all(
    Array.from({ length: sources.shards.count }, async (_, shard) => {
      if (!live.has(shard)) return null;
      try {
        return await sources.ask(shard);
      } catch (error) {
        if (error instanceof ShardUnavailable) return null;
        throw error;
      }
    }),
  );
}

export async function clusterView(view: ClusterView, sources: ViewSources): Promise<Merged> {
  if (view === 'tokens') return tokensView(sources);
  const [answers, health, workers] = await Promise.all([
    askLive(sources),
    sources.shards.health(sources.healthTimeoutMs),
    probeWorkers(sources.workerUrls, sources.healthTimeoutMs),
  ]);
  const refused = answers.find((a): a is ShardAnswer => a !== null && REFUSALS.has(a.status));
  if (refused !== undefined) return { answer: refused };
  const shards = health.map((h) => {
    const answer = answers[h.shard];
    return {
      shard: h.shard,
      url: h.url,
      // A shard that did not answer its pipeline is not healthy, whatever its /healthz said a moment apart.
      health: answer === null || answer === undefined ? null : h.status,
      pipeline: answer?.status === 200 ? (JSON.parse(answer.text) as ShardPipeline) : null,
    };
  });
  return { json: mergePipeline(shards, workers, { address: sources.frontAddress }) };
}

async function tokensView(sources: ViewSources): Promise<Merged> {
  const answers = (await askLive(sources)).filter((a): a is ShardAnswer => a !== null);
  if (answers.length === 0) throw new ShardUnavailable(sources.shards.down()[0] ?? 0);
  const refused = answers.find((a) => a.status !== 200);
  if (refused !== undefined) return { answer: refused };
  const lists = answers.map((a) => (JSON.parse(a.text) as { tokens: TokenRow[] }).tokens);
  return { json: { tokens: mergeTokens(lists) } };
}
