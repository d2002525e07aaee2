import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/dispatch/delivery-worker.js';
import { WebhookHttpClient } from '../../src/dispatch/http-client.js';
import type { AttemptRecord, DeliveryJob } from '../../src/streams/catalog.js';
import { SsrfGuard } from '../../src/net/ssrf.js';
import {
  CANCELLED,
  InlinePoster,
  ThreadedPoster,
  type PostOutcome,
  type SignedPost,
  type WebhookPoster,
} from '../../src/dispatch/webhook-poster.js';
import { ManualClock, type StreamBus } from '../../src/streams/stream.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

// Attempts of one key are pipelined: the dispatcher hands them to the poster at once, and the poster
// (on the event loop or in its thread) sends them one after the other, in order, each as soon as
// the one before was answered.
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function hangingReceiver() {
  const receiver = await startReceiver(
    () => [SECRET],
    () => 'hang',
  );
  closing.push(() => receiver.close());
  /** Answers the request of that webhook-id with 200 (every request hangs: `hanging` is in arrival order too). */
  const answer = (id: string) =>
    receiver.hanging[receiver.received.findIndex((r) => r.id === id)]!.writeHead(200).end('ok');
  return { receiver, answer };
}

const request = (url: string, id: string, order?: string): SignedPost => ({
  url,
  id,
  body: JSON.stringify({ id }),
  secrets: [SECRET],
  timeoutMs: 10_000,
  order,
});

/**
 * Hands the poster an attempt of a key of its own and waits until it is answered: it goes out after
 * anything handed over before it that was to go out at once, so a check of what did not go out
 * follows it.
 */
async function marker(
  p: WebhookPoster,
  { receiver, answer }: Awaited<ReturnType<typeof hangingReceiver>>,
  id: string,
): Promise<void> {
  const outcome = p.post(request(receiver.url, id, `marker-${id}`));
  await eventually(`the marker ${id}`, () => receiver.received.some((r) => r.id === id));
  answer(id);
  expect((await outcome).statusCode).toBe(200);
}

describe.each([
  ['on the event loop', () => new InlinePoster(new WebhookHttpClient(new SsrfGuard(['127.0.0.1'])))],
  [
    'in poster threads',
    () => new ThreadedPoster({ threads: 2, data: { allowHosts: ['127.0.0.1'] }, logger: memoryLogger().logger }),
  ],
] as const)('ordered attempts %s', (_where, makePoster) => {
  function poster(): WebhookPoster {
    const p = makePoster();
    closing.push(() => p.close());
    return p;
  }

  it('sends the attempts of one order key one at a time, in order, and other keys beside them', async () => {
    const hanging = await hangingReceiver();
    const { receiver, answer } = hanging;
    const p = poster();
    const outcomes = ['a1', 'a2', 'a3'].map((id) => p.post(request(receiver.url, id, 'endpoint-a')));
    const other = p.post(request(receiver.url, 'b1', 'endpoint-b'));
    await eventually('the first of each key', () => receiver.received.length === 2);
    await marker(p, hanging, 'm1');
    expect(receiver.received.map((r) => r.id).sort()).toEqual(['a1', 'b1', 'm1']);
    // The answer to a1 starts a2, and nothing else of its key.
    answer('a1');
    await eventually('a2 after a1 was answered', () => receiver.received.length === 4);
    expect(receiver.received[3]!.id).toBe('a2');
    answer('b1');
    await marker(p, hanging, 'm2');
    expect(receiver.received.map((r) => r.id).slice(3)).toEqual(['a2', 'm2']);
    answer('a2');
    await eventually('a3 last', () => receiver.received.length === 6);
    expect(receiver.received[5]!.id).toBe('a3');
    answer('a3');
    for (const outcome of [...outcomes, other]) expect((await outcome).statusCode).toBe(200);
  });

  it('fails the attempts queued behind another when cancelled, once their turn comes, and lets the running one finish', async () => {
    const hanging = await hangingReceiver();
    const { receiver, answer } = hanging;
    const p = poster();
    const [first, second, third] = ['c1', 'c2', 'c3'].map((id) => p.post(request(receiver.url, id, 'endpoint-c')));
    await eventually('c1 sent', () => receiver.received.length === 1);
    p.cancelQueued();
    // Attempts handed over after the cancel go out as usual, still behind the earlier ones.
    const later = p.post(request(receiver.url, 'c4', 'endpoint-c'));
    await marker(p, hanging, 'm1');
    expect(receiver.received.map((r) => r.id)).toEqual(['c1', 'm1']);
    answer('c1');
    expect((await first!).statusCode).toBe(200);
    await expect(second).rejects.toThrow(CANCELLED);
    await expect(third).rejects.toThrow(CANCELLED);
    await eventually('c4 sent', () => receiver.received.length === 3);
    answer('c4');
    expect((await later).statusCode).toBe(200);
    expect(receiver.received.map((r) => r.id)).toEqual(['c1', 'm1', 'c4']);
  });
});

/** A poster whose answers the test gives by hand, in the order attempts were handed to it. */
class HandPoster implements WebhookPoster {
  readonly posted: { request: SignedPost; answer: (outcome: PostOutcome) => void }[] = [];
  post(request: SignedPost): Promise<PostOutcome> {
    return new Promise((resolve) => this.posted.push({ request, answer: resolve }));
  }
  cancelQueued(): void {}
  async close(): Promise<void> {}
}

/** A dispatcher posting through `poster`, `endpointConcurrency` attempts per endpoint, recording with `record`. */
function handWorker(
  poster: WebhookPoster,
  endpointConcurrency: number,
  record: (attempt: AttemptRecord) => Promise<void>,
): DeliveryWorker {
  return new DeliveryWorker({
    bus: {} as StreamBus,
    poster,
    clock: new ManualClock(),
    logger: memoryLogger().logger,
    timeoutMs: 5_000,
    endpointConcurrency,
    policy: { scheduleMs: [0, 1_000], jitter: 0, retryAfterMaxMs: 60_000 },
    record,
  });
}

function job(n: number, endpointId = 1): DeliveryJob {
  return {
    delivery_id: `del_${n}`,
    event: {
      id: `evt_${n}`,
      type: 'message.create',
      company_id: 1,
      created_at: new Date().toISOString(),
      body: { n },
    } as unknown as DeliveryJob['event'],
    endpoint: { id: endpointId, url: 'http://127.0.0.1:9/hooks', secrets: [SECRET] },
    attempt: 1,
    step: 1,
    trigger: 'auto',
  };
}

describe('DeliveryWorker hands attempts over without waiting for their answers', () => {
  it('resolves once an attempt is handed to the poster, up to the endpoint slots, and records each once answered', async () => {
    const poster = new HandPoster();
    const recorded: AttemptRecord[] = [];
    const worker = handWorker(poster, 2, async (attempt) => void recorded.push(attempt));
    const first = await worker.deliver(job(1), undefined, 'k');
    const second = await worker.deliver(job(2), undefined, 'k');
    expect(poster.posted.map((p) => [p.request.id, p.request.order])).toEqual([
      ['evt_1', 'k'],
      ['evt_2', 'k'],
    ]);
    // A third attempt for the endpoint waits for a free slot: the first answer.
    let thirdHanded = false;
    const third = worker.deliver(job(3), undefined, 'k').then((d) => ((thirdHanded = true), d));
    // Another endpoint has slots of its own: its attempt, asked for after the third, is handed over
    // while the third still waits.
    await worker.deliver(job(4, 2), undefined, 'other');
    expect(thirdHanded).toBe(false);
    expect(poster.posted.map((p) => p.request.id)).toEqual(['evt_1', 'evt_2', 'evt_4']);

    poster.posted[0]!.answer({ statusCode: 200, retryAfter: null, body: 'ok', error: null, durationMs: 3 });
    await first.recorded;
    expect((await third).attempt).toBeInstanceOf(Promise);
    expect(poster.posted.map((p) => p.request.id)).toEqual(['evt_1', 'evt_2', 'evt_4', 'evt_3']);
    poster.posted[1]!.answer({ statusCode: 500, retryAfter: null, body: 'no', error: null, durationMs: 4 });
    await second.recorded;
    expect(recorded.map((r) => [r.delivery_id, r.outcome, r.status_code])).toEqual([
      ['del_1', 'delivered', 200],
      ['del_2', 'retry', 500],
    ]);
  });

  it('keeps slots only for the endpoints with an attempt in flight or waiting', async () => {
    const poster = new HandPoster();
    const worker = handWorker(poster, 1, async () => {});
    const ok = { statusCode: 200, retryAfter: null, body: 'ok', error: null, durationMs: 1 };
    const handed = await Promise.all(
      [1, 2, 3].map((endpoint) => worker.deliver(job(endpoint, endpoint), undefined, `e${endpoint}`)),
    );
    // A second attempt for endpoint 1 waits for its one slot.
    const waiting = worker.deliver(job(4, 1), undefined, 'e1');
    expect(worker.endpointsSending).toBe(3);
    poster.posted[1]!.answer(ok);
    poster.posted[2]!.answer(ok);
    await Promise.all([handed[1]!.recorded, handed[2]!.recorded]);
    expect(worker.endpointsSending).toBe(1);
    // Endpoint 1's slot passes to its waiting attempt: still sending.
    poster.posted[0]!.answer(ok);
    await handed[0]!.recorded;
    const fourth = await waiting;
    expect(worker.endpointsSending).toBe(1);
    poster.posted[3]!.answer(ok);
    await fourth.recorded;
    expect(worker.endpointsSending).toBe(0);
  });

  it('sends a first attempt now when its endpoint and the dispatcher have a free slot, and declines it otherwise', async () => {
    const poster = new HandPoster();
    const recorded: AttemptRecord[] = [];
    const worker = handWorker(poster, 1, async (attempt) => void recorded.push(attempt));
    const signal = new AbortController().signal;
    const first = worker.deliverNow(job(1), signal, 'e1');
    expect(first).toBeInstanceOf(Promise);
    expect(poster.posted.map((p) => [p.request.id, p.request.order])).toEqual([['evt_1', 'e1']]);
    // Endpoint 1's one slot is taken: its next attempt takes the runner's way, and holds no slot.
    expect(worker.deliverNow(job(2), signal, 'e1')).toBeNull();
    expect(worker.endpointsSending).toBe(1);
    const other = worker.deliverNow(job(3, 2), signal, 'e2');
    expect(other).toBeInstanceOf(Promise);
    poster.posted[0]!.answer({ statusCode: 200, retryAfter: null, body: 'ok', error: null, durationMs: 2 });
    poster.posted[1]!.answer({ statusCode: 503, retryAfter: null, body: 'busy', error: null, durationMs: 2 });
    await Promise.all([first, other]);
    expect(
      recorded.map((r) => [r.delivery_id, r.endpoint_id, r.number, r.step, r.outcome, r.status_code, r.response_body]),
    ).toEqual([
      ['del_1', 1, 1, 1, 'delivered', 200, 'ok'],
      ['del_3', 2, 1, 1, 'retry', 503, 'busy'],
    ]);
    expect(worker.endpointsSending).toBe(0);
    // A stopping dispatcher sends nothing more this way.
    const stopping = new AbortController();
    stopping.abort();
    expect(worker.deliverNow(job(4), stopping.signal, 'e1')).toBeNull();
    expect(poster.posted).toHaveLength(2);
  });
});
