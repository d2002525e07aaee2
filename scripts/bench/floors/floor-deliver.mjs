// How the complete deliver floor sends its committed events (floor-complete.mjs deliver, on the thread
// of floor-poster-thread.mjs, and deliver-inline, on its event loop): each signed by the Standard
// Webhooks scheme (HMAC-SHA256 of id.timestamp.body with the decoded `whsec_` secret of its
// endpoint, node:crypto as the daemon signs) and POSTed over an undici keep-alive pool to
// `<receiver url>?c=<endpoint>`. An endpoint's events go out in commit order, one at a time, each
// once the one before it was answered (docs/design.md, section 3: in order per key on the happy
// path). No retries: the least the design asks of a delivery that succeeds.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Pool } from 'undici';

/** The endpoints' signing keys, by endpoint index, from the floor's secrets file (floors.mjs floorSecrets). */
export function loadKeys(secretsFile) {
  return JSON.parse(fs.readFileSync(secretsFile, 'utf8')).map((s) =>
    crypto.createSecretKey(Buffer.from(s.slice('whsec_'.length), 'base64')),
  );
}

/**
 * A sender of committed events `{ id, json, endpoint, ... }`: `deliver(e)` sends it now, or after
 * the events of its endpoint before it. `answered(e, statusCode, startedAt, durationMs, answer)`
 * once the receiver answered 2xx, with the first 4 KiB of its answer (docs/design.md, section 7).
 */
export function endpointSender({ receiverUrl, keys, answered }) {
  const receiver = new URL(receiverUrl);
  const pool = new Pool(receiver.origin, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  /** Per endpoint with an event in flight, the events waiting behind it, in commit order. */
  const lanes = new Map();

  function deliver(e) {
    const lane = lanes.get(e.endpoint);
    if (lane !== undefined) lane.push(e);
    else {
      lanes.set(e.endpoint, []);
      post(e);
    }
  }

  /** The endpoint's event in flight was answered: its next one goes out. */
  function next(endpoint) {
    const e = lanes.get(endpoint).shift();
    if (e === undefined) lanes.delete(endpoint);
    else post(e);
  }

  function post(e) {
    const started = Date.now();
    const timestamp = String(Math.floor(started / 1000));
    const signature = crypto
      .createHmac('sha256', keys[e.endpoint])
      .update(`${e.id}.${timestamp}.${e.json}`)
      .digest('base64');
    pool
      .request({
        method: 'POST',
        path: `${receiver.pathname}?c=${e.endpoint}`,
        headers: {
          'content-type': 'application/json',
          'webhook-id': e.id,
          'webhook-timestamp': timestamp,
          'webhook-signature': `v1,${signature}`,
        },
        body: e.json,
      })
      .then(async (response) => {
        const answer = (await response.body.text()).slice(0, 4096);
        if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`answered ${response.statusCode}`);
        answered(e, response.statusCode, started, Date.now() - started, answer);
      })
      .catch((error) => process.stderr.write(`floor delivery ${e.id} failed: ${error.message}\n`))
      .finally(() => next(e.endpoint));
  }

  return deliver;
}
