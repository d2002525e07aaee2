// Scenario 5 of bench.mjs: a bulk replay of failed deliveries spread over every company's endpoint,
// at what rate it runs from the first delivery to the last, and whether its rate and RSS stay flat.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { call, setupCompanies, sleep } from './lib.mjs';
import { rssThirds, sampleRss } from './proc-stats.mjs';
import { epochNow } from './load.mjs';
import { prefillFailedDeliveries } from './prefill.mjs';

/** `P.replay` failed deliveries over `companies` endpoints replayed by one admin request, against the receiver's own rate. */
export async function replayScenario({ daemon, dataDir, receiver, row, P, companies: companyCount }) {
  let d = await daemon('s5-replay');
  const companies = await setupCompanies(d.base, receiver.url, companyCount);
  const company = companies[0];
  await d.stop();
  // The failed deliveries of an outage, spread over every company's endpoint: deliveries of one
  // endpoint go out one at a time, so a replay to a single endpoint is bounded by its round trip.
  for (const [index, c] of companies.entries()) {
    const count = Math.floor(P.replay / companies.length) + (index < P.replay % companies.length ? 1 : 0);
    prefillFailedDeliveries(path.join(dataDir('s5-replay'), 'gateway.db'), {
      companyId: c.companyId,
      endpointId: c.endpointId,
      count,
      from: index * 1_000_000,
    });
  }
  await receiver.useCompanies(companies);
  // Baseline: what the receiver itself takes (signed POSTs, verified) at maximum rate.
  const body = JSON.stringify({
    id: 'evt_base',
    event: 'create',
    type: 'message',
    created_at: new Date().toISOString(),
    object: { id: 1, message: 'x:baseline' },
  });
  const headers = {
    'content-type': 'application/json',
    'webhook-id': 'evt_base',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
  };
  headers['webhook-signature'] = new Webhook(company.webhookSecret).sign(
    'evt_base',
    new Date(Number(headers['webhook-timestamp']) * 1000),
    body,
  );
  const base = await autocannon({
    url: `${receiver.url}?c=0`,
    method: 'POST',
    headers,
    body,
    connections: 8,
    duration: P.ingest,
  });
  const baseRps = base.requests.total / base.duration;
  await receiver.reset();
  d = await daemon('s5-replay');
  try {
    const t0 = epochNow();
    const rss = sampleRss([d.pid], 1_000);
    const { task } = await call(d.base, 'POST', '/admin/replays', { admin: true, body: { status: 'failed' } });
    // At least 1,000 deliveries/s, however many: a replay slower than that has failed anyway.
    const deadline = performance.now() + Math.max(P.drainMs, P.replay);
    let state = await receiver.status();
    const progress = [{ at: t0, replayed: 0 }];
    while (state.replayed < P.replay && performance.now() < deadline) {
      await sleep(250);
      state = await receiver.status();
      progress.push({ at: epochNow(), replayed: state.replayed });
    }
    const samples = rss.stop()[d.pid];
    const seconds = (state.lastArrival - t0) / 1000;
    if (state.bad > 0) throw new Error(`${state.bad} webhooks failed signature verification`);
    if (state.replayed < P.replay)
      throw new Error(`only ${state.replayed} of ${P.replay} replays arrived (task ${task.id})`);
    const rate = P.replay / seconds;
    row('5 replay', `deliveries/s (${P.replay.toLocaleString('en')} replayed)`, rate, {
      baseline: baseRps,
      ratio: rate / baseRps,
      target: '≥ 2,000/s',
      ok: rate >= 2000,
    });
    // Steady to the end: the deliveries of the last third of the sending time against the first
    // third's (from the first poll that saw one arrive: the task's start is not a rate).
    const begun = progress.find((p) => p.replayed > 0)?.at ?? t0;
    const third = (state.lastArrival - begun) / 3;
    const replayedAt = (at) => progress.findLast((p) => p.at <= at)?.replayed ?? 0;
    const [first, last] = [
      (replayedAt(begun + third) - replayedAt(begun)) / third,
      (P.replay - replayedAt(begun + 2 * third)) / third,
    ];
    // A third shorter than a few polls (the quick form's 2,000) says nothing.
    if (third >= 3_000)
      row(
        '5 replay',
        'deliveries/s, first → last third of the replay',
        `${(first * 1000).toFixed(0)} → ${(last * 1000).toFixed(0)}`,
        { ratio: last / first, target: '≥ 0.9', ok: last / first >= 0.9 },
      );
    const rssOfReplay = rssThirds(samples);
    row('5 replay', 'peak RSS (MB)', rssOfReplay.peak, { target: '≤ 200', ok: rssOfReplay.peak <= 200 });
    // Growth needs thirds of a few samples each (one a second): the quick form's replay is over in one.
    if (samples.length >= 9)
      row(
        '5 replay',
        'RSS, first → last third (MB)',
        `${rssOfReplay.first.toFixed(0)} → ${rssOfReplay.last.toFixed(0)}`,
        {
          ratio: rssOfReplay.last / rssOfReplay.first,
          target: 'growth < 5 %',
          ok: rssOfReplay.last / rssOfReplay.first < 1.05,
        },
      );
  } finally {
    await d.stop();
  }
}
