// Scenario 9's outage: under the cluster's callbacks at a fixed rate, through its front, one shard's
// core is killed (SIGKILL) and, a few seconds later, started again on its store and port. It answers
// the other shard's latencies (callback → webhook, and the callback's answer) while the shard was
// down against the seconds before, how the front answered the killed shard's callbacks, and whether
// every callback accepted by either shard, before, during or after, reached the receiver.
import { percentile, sleep } from './lib.mjs';
import { epochNow, fixedRate, waitArrivals } from './load.mjs';

/** The shard whose core is killed; the other one's callbacks are watched. */
const VICTIM = 1;
/** Seconds of load at the start left out of "before": the pipeline settling after the CPU rounds. */
const SETTLE_SECONDS = 1;

/**
 * `cluster` (cluster.mjs startCluster), `sharded` the cluster as a contestant, `shards` the shard of
 * each of its companies; `P.cluster.outage` holds the seconds before the kill, down, and after the
 * restart. Throws when an accepted callback's event never arrived.
 */
export async function clusterOutage({ cluster, sharded, shards, receiver, row, log, rate, P }) {
  const { before, down, after } = P.cluster.outage;
  const label = `9 cluster, shard ${VICTIM} killed`;
  const live = 1 - VICTIM;
  const shardOf = (n) => shards[n % sharded.companies.length];
  await receiver.reset();
  const answers = [];
  let ended = false;
  const load = fixedRate({
    base: sharded.base,
    companies: sharded.companies,
    rate,
    // Long enough for any restart; `until` ends it `after` seconds past the core's return.
    seconds: before + down + after + 120,
    onAnswer: (answer) => answers.push(answer),
    until: () => ended,
  });
  let killedAt;
  let upAt;
  try {
    await sleep(before * 1000);
    killedAt = epochNow();
    await cluster.cores[VICTIM].kill();
    log(`${label}: core ${VICTIM} killed (SIGKILL); started again in ${down} s`);
    await sleep(down * 1000);
    await cluster.restartCore(VICTIM);
    upAt = epochNow();
    log(`${label}: core ${VICTIM} healthy again ${((upAt - killedAt) / 1000).toFixed(1)} s after the kill`);
    await sleep(after * 1000);
  } finally {
    ended = true;
    await load;
  }

  const first = answers.reduce((min, a) => Math.min(min, a.sentAt), Infinity);
  const windows = {
    before: (a) => a.sentAt >= first + SETTLE_SECONDS * 1000 && a.sentAt < killedAt,
    during: (a) => a.sentAt >= killedAt && a.sentAt < upAt,
    after: (a) => a.sentAt >= upAt,
  };
  const ok = (a) => a.status >= 200 && a.status < 300;
  const accepted = answers.filter(ok).map((a) => a.n);
  const state = await waitArrivals(receiver, accepted, P.drainMs);
  if (state.bad > 0) throw new Error(`${label}: ${state.bad} webhooks failed signature verification`);
  if (state.missing > 0)
    throw new Error(`${label}: ${state.missing} of ${accepted.length} accepted callbacks' events never arrived`);

  const figures = {};
  for (const [name, inWindow] of Object.entries(windows)) {
    const liveAnswers = answers.filter((a) => shardOf(a.n) === live && inWindow(a));
    const delivered = liveAnswers.filter(ok).map((a) => a.n);
    const latencies = await receiver.latencies(delivered);
    figures[name] = {
      sent: liveAnswers.length,
      failed: liveAnswers.length - delivered.length,
      webhook: [50, 99].map((p) => percentile(latencies, p)),
      answer: [50, 99].map((p) =>
        percentile(
          liveAnswers.map((a) => a.ms).sort((a, b) => a - b),
          p,
        ),
      ),
    };
  }
  const victimDuring = answers.filter((a) => shardOf(a.n) === VICTIM && windows.during(a));
  const unavailable = victimDuring.filter((a) => a.status === 503 && a.retryAfter !== undefined).length;
  const victimAfter = answers.filter((a) => shardOf(a.n) === VICTIM && windows.after(a));

  const ms = (pair) => pair.map((v) => v.toFixed(1)).join(' / ');
  row(
    label,
    'outage: SIGKILL → started again → healthy (s)',
    `${down} + ${((upAt - killedAt) / 1000 - down).toFixed(1)}`,
  );
  for (const name of ['before', 'during', 'after'])
    row(
      label,
      `shard ${live} ${name} the outage: callbacks sent; callback→webhook p50 / p99; answer p50 / p99 (ms)`,
      `${figures[name].sent}; ${ms(figures[name].webhook)}; ${ms(figures[name].answer)}`,
    );
  row(label, `shard ${live} callback→webhook p99 during the outage (baseline: before it)`, figures.during.webhook[1], {
    baseline: figures.before.webhook[1],
    ratio: figures.during.webhook[1] / figures.before.webhook[1],
  });
  row(label, `shard ${live} answer p99 during the outage (baseline: before it)`, figures.during.answer[1], {
    baseline: figures.before.answer[1],
    ratio: figures.during.answer[1] / figures.before.answer[1],
  });
  const liveFailed = figures.before.failed + figures.during.failed + figures.after.failed;
  row(label, `shard ${live} callbacks not answered 2xx`, liveFailed, { target: '0', ok: liveFailed === 0 });
  row(
    label,
    `shard ${VICTIM} callbacks during the outage: 503 with Retry-After / other non-2xx / 2xx`,
    `${unavailable} / ${victimDuring.filter((a) => !ok(a)).length - unavailable} / ${victimDuring.filter(ok).length}`,
  );
  row(
    label,
    `shard ${VICTIM} callbacks after the restart answered 2xx`,
    `${victimAfter.filter(ok).length} of ${victimAfter.length}`,
  );
  row(
    label,
    'accepted callbacks (both shards) whose event arrived',
    `${accepted.length - state.missing} of ${accepted.length}`,
    {
      ok: true,
    },
  );
}
