// The load generators: signed bot-style callbacks at maximum rate (autocannon, closed loop) or at a
// fixed rate (undici, open loop), and the waits for what they set off (webhooks arriving, the
// pipeline idle).
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { ADMIN_TOKEN, percentile, sleep } from './lib.mjs';

/**
 * A bot-style update: message `n` from sender `n % senders` (chat ids from `firstSender` on). The text carries `b:<n>:<send time>`
 * (epoch ms with fractions) so the receiver can measure callback → webhook.
 */
export function botBody(n, senders, stamp, firstSender = 100_000) {
  const chat = firstSender + (n % senders);
  return JSON.stringify({
    update_id: 1_000_000 + n,
    message: {
      message_id: n,
      from: { id: chat, is_bot: false, first_name: 'Sender', last_name: String(chat), username: `sender_${chat}` },
      chat: { id: chat, first_name: 'Sender', last_name: String(chat), username: `sender_${chat}`, type: 'private' },
      date: 1_749_416_383,
      text: `b:${n}:${stamp.toFixed(3)}`,
    },
  });
}

export const epochNow = () => performance.timeOrigin + performance.now();

let counter = 1;
/** A message number never used before in this run (every callback is a new message). */
export const takeN = () => counter++;

/**
 * Closed-loop load at maximum rate (autocannon): `connections` callbacks in flight, each new one
 * distinct. Answers autocannon's result plus the message numbers answered 2xx.
 */
export async function maxRate({ base, companies, seconds, connections = 32, senders = 10_000, firstSender = 100_000 }) {
  const accepted = [];
  const targets = companies.map((c) => ({
    path: c.callbackPath,
    headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': c.secretToken },
  }));
  const result = await autocannon({
    url: base,
    connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: targets[0].path,
        headers: targets[0].headers,
        setupRequest(req, context) {
          const mine = takeN();
          context.n = mine;
          const target = targets[mine % targets.length];
          return {
            ...req,
            path: target.path,
            headers: target.headers,
            body: botBody(mine, senders, epochNow(), firstSender),
          };
        },
        onResponse(status, _body, context) {
          if (status >= 200 && status < 300) accepted.push(context.n);
        },
      },
    ],
  });
  return {
    rps: result.requests.total / (result.duration || seconds),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    accepted,
  };
}

/**
 * Open-loop load at a fixed rate: `rate` callbacks per second spread evenly (every 5 ms a slice),
 * whatever the answers, over a pool of keep-alive connections. Answers per-request HTTP latencies.
 * `onAnswer`, when given, hears of every callback: its message number `n` (its company is
 * `companies[n % companies.length]`), `sentAt` (epoch ms), `ms` until answered, the `status` (0 when
 * no answer came) and the `retryAfter` header. `until`, when given, ends the load early once it answers true.
 */
export async function fixedRate({
  base,
  companies,
  rate,
  seconds,
  senders = 10_000,
  connections = 64,
  onAnswer = () => {},
  until = () => false,
}) {
  const pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  // Every connection is open before the clock starts, as a sender at a steady rate keeps its
  // keep-alive connections. Opened on demand, they were opened in the measured seconds whenever the
  // answers slowed, and some callbacks were then answered 100-500 ms after they were sent while the
  // daemon's request log had none above 84 ms.
  await Promise.all(
    Array.from({ length: connections }, () =>
      pool.request({ method: 'GET', path: '/healthz' }).then((res) => res.body.dump()),
    ),
  );
  const targets = companies.map((c) => ({
    path: c.callbackPath,
    headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': c.secretToken },
  }));
  const latencies = [];
  const accepted = [];
  let failed = 0;
  const inflight = new Set();
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let sent = 0;
  while (sent < total && !until()) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    while (sent < due) {
      const mine = takeN();
      sent += 1;
      const t0 = performance.now();
      const sentAt = epochNow();
      const target = targets[mine % targets.length];
      const p = pool
        .request({
          method: 'POST',
          path: target.path,
          headers: target.headers,
          body: botBody(mine, senders, sentAt),
        })
        .then(async (res) => {
          await res.body.dump();
          const ms = performance.now() - t0;
          latencies.push(ms);
          if (res.statusCode >= 200 && res.statusCode < 300) accepted.push(mine);
          else failed += 1;
          onAnswer({ n: mine, sentAt, ms, status: res.statusCode, retryAfter: res.headers['retry-after'] });
        })
        .catch(() => {
          failed += 1;
          onAnswer({ n: mine, sentAt, ms: performance.now() - t0, status: 0, retryAfter: undefined });
        })
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await sleep(5);
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    rate: sent / elapsed,
    total: sent,
    failed,
    accepted,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
  };
}

/**
 * Waits until the daemon's pipeline is idle: no outbox row pending and no stream message due and
 * not committed by its consumer group (GET /metrics: gateway_outbox_pending_rows and
 * gateway_stream_lag_messages), twice in a row. Webhooks arriving does not mean that: attempt
 * records (gateway.attempts in Kafka mode) and stream commits may still be on their way. Answers
 * how long it waited and what was left when it gave up (null when idle).
 */
export async function waitIdle(base, timeoutMs) {
  const started = performance.now();
  let idleTimes = 0;
  let left;
  for (;;) {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const text = await response.text();
    left = text
      .split('\n')
      .filter(
        (line) =>
          /^gateway_(outbox_pending_rows|stream_lag_messages)\b/.test(line) && Number(line.split(' ').at(-1)) > 0,
      );
    idleTimes = left.length === 0 ? idleTimes + 1 : 0;
    const waitedMs = performance.now() - started;
    if (idleTimes === 2) return { waitedMs, left: null };
    if (waitedMs > timeoutMs) return { waitedMs, left };
    await sleep(100);
  }
}

/**
 * A warm-up: `seconds` of maximum-rate load (`connections`, senders from `firstSender` on: maxRate's
 * defaults when not given), `check`ed, then the wait until every event it set off reached the
 * receiver; throws, naming `what`, when some never did.
 */
export async function warmUp({
  receiver,
  base,
  companies,
  seconds,
  drainMs,
  what,
  connections,
  firstSender,
  check = () => {},
}) {
  const warm = await maxRate({ base, companies, seconds, connections, firstSender });
  check(warm, `${what}: warm-up`);
  if ((await waitArrivals(receiver, warm.accepted, drainMs)).missing > 0)
    throw new Error(`${what}: warm-up events never arrived`);
}

/** Waits until every accepted message number reached the receiver, or the timeout passed; answers the receiver's status. */
export async function waitArrivals(receiver, accepted, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  await receiver.expect(accepted);
  for (;;) {
    const status = await receiver.status();
    if (status.missing === 0 || performance.now() > deadline) return status;
    await sleep(200);
  }
}
