// What a sink process of the bench keeps of the events it receives, whatever carried them (a
// webhook POST to receiver.mjs, a broker message read by broker-sink.mjs): it verifies each one's
// Standard Webhooks signature with its company's secret, counts it, and records the message.create
// events of the load (text `b:<n>:<send time, epoch ms>`) with their callback → arrival time. It
// answers the IPC requests sinks.mjs sends (secrets, reset, expect, status, latencies).
//
// The sinks share the machine's two cores with the daemon, as no real consumer would, so they
// verify with node:crypto's HMAC (about 4 µs an event) rather than the standardwebhooks package's
// pure-JS SHA-256 (about 28 µs): the same check (the spec's signed content, key and timestamp
// tolerance). Every 64th event is verified by the package too, and a disagreement counts as a bad
// signature.
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

export const now = () => performance.timeOrigin + performance.now();
/** The Standard Webhooks tolerance for the timestamp, seconds either way. */
const TOLERANCE_S = 5 * 60;
const CROSS_CHECK_EVERY = 64;
let seen = 0;

/** A verifier of one secret (`whsec_<base64 key>`): throws unless some `v1,` signature matches. */
export function verifier(secret) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const reference = new Webhook(secret);
  return (raw, headers) => {
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signatures = headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
      throw new Error('missing headers');
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_S) throw new Error('timestamp out of tolerance');
    const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${raw}`).digest();
    const ok = signatures.split(' ').some((entry) => {
      if (!entry.startsWith('v1,')) return false;
      const given = Buffer.from(entry.slice(3), 'base64');
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    });
    if (!ok) throw new Error('no matching signature');
    // The package checks the same event now and then: the two must agree.
    if (++seen % CROSS_CHECK_EVERY === 0) reference.verify(raw, headers);
  };
}

/** The events a sink received since its last reset, verified with the secrets of its companies. */
export class Arrivals {
  verifiers = [];
  expected = [];
  ids = new Set();
  /** Message number of the load → callback → arrival ms. */
  arrived = new Map();
  replayed = new Set();
  /** Events by `<type>.<event>` (message.create, conversation.update...). */
  kinds = new Map();
  bad = 0;
  hooks = 0;
  lastArrival = 0;

  /**
   * One event for company `c` (its index in the secrets), raw body and headers as strings, `at`
   * the epoch ms it arrived. Answers false when its signature did not verify (it is not counted).
   */
  record(c, raw, headers, at = now()) {
    try {
      this.verifiers[c](raw, headers);
    } catch {
      this.bad += 1;
      return false;
    }
    this.hooks += 1;
    this.ids.add(headers['webhook-id']);
    this.lastArrival = at;
    const body = JSON.parse(raw);
    const kind = `${body.type}.${body.event}`;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    const text = body?.object?.message;
    if (body.type === 'message' && typeof text === 'string') {
      if (text.startsWith('b:')) {
        const [, n, sent] = text.split(':');
        if (!this.arrived.has(Number(n))) this.arrived.set(Number(n), at - Number(sent));
      } else if (text.startsWith('r:')) {
        this.replayed.add(text);
      }
    }
    return true;
  }

  /** The answer to one IPC request of sinks.mjs, or undefined when the request is not about arrivals. */
  answer(message) {
    switch (message.type) {
      case 'secrets':
        this.verifiers = message.secrets.map(verifier);
        return { type: 'ok' };
      case 'reset':
        this.ids.clear();
        this.arrived.clear();
        this.replayed.clear();
        this.kinds.clear();
        this.expected = [];
        Object.assign(this, { bad: 0, lastArrival: 0, hooks: 0 });
        return { type: 'ok' };
      case 'expect':
        this.expected = message.expect;
        return { type: 'ok' };
      case 'status':
        return {
          type: 'status',
          missing: this.expected.filter((n) => !this.arrived.has(n)).length,
          arrived: this.arrived.size,
          replayed: this.replayed.size,
          bad: this.bad,
          hooks: this.hooks,
          ids: this.ids.size,
          kinds: Object.fromEntries(this.kinds),
          lastArrival: this.lastArrival,
        };
      case 'latencies':
        return { type: 'latencies', latencies: message.of.map((n) => this.arrived.get(n) ?? null) };
      default:
        return undefined;
    }
  }
}
