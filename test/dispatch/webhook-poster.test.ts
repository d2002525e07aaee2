import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadedPoster } from '../../src/dispatch/webhook-poster.js';
import { startReceiver } from '../helpers/receiver.js';
import { eventually, memoryLogger } from '../helpers/wait.js';

// The attempts' HTTP work in a worker thread (GATEWAY_WEBHOOK_THREADS, default 1). The thread runs
// the built code (dist/): `npm test` builds before it runs the tests.
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function setup(allowHosts: string[], answer?: Parameters<typeof startReceiver>[1]) {
  const receiver = await startReceiver(() => [SECRET], answer);
  const { logger } = memoryLogger();
  const poster = new ThreadedPoster({ threads: 2, data: { allowHosts }, logger });
  closing.push(
    () => receiver.close(),
    () => poster.close(),
  );
  return { receiver, poster };
}

describe('webhook poster threads', () => {
  it('sign and send every attempt, round robin over the threads, and answer what the receiver said', async () => {
    const { receiver, poster } = await setup(['127.0.0.1'], (n) =>
      n === 3 ? { status: 503, headers: { 'retry-after': '7' }, body: 'busy' } : { status: 200 },
    );
    const outcomes = await Promise.all(
      [1, 2, 3].map((n) =>
        poster.post({
          url: receiver.url,
          id: `evt_${n}`,
          body: JSON.stringify({ n }),
          secrets: [SECRET],
          timeoutMs: 5_000,
        }),
      ),
    );
    expect(receiver.received.map((r) => r.verifiedBy)).toEqual([[0], [0], [0]]);
    expect(receiver.received.map((r) => r.id).sort()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    const byStatus = outcomes
      .map(({ durationMs, ...rest }) => (expect(durationMs).toBeGreaterThanOrEqual(0), rest))
      .sort((a, b) => a.statusCode! - b.statusCode!);
    expect(byStatus).toEqual([
      { statusCode: 200, retryAfter: null, body: 'answer 200', error: null },
      { statusCode: 200, retryAfter: null, body: 'answer 200', error: null },
      { statusCode: 503, retryAfter: '7', body: 'busy', error: null },
    ]);
  });

  it('refuse a private address that is not allow-listed, from inside the thread', async () => {
    const { receiver, poster } = await setup([]);
    const outcome = await poster.post({
      url: receiver.url,
      id: 'evt_private',
      body: '{}',
      secrets: [SECRET],
      timeoutMs: 5_000,
    });
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/127\.0\.0\.1/);
    expect(receiver.received).toEqual([]);
  });

  it('fail the attempts of a thread that died, and start it again for the next one', async () => {
    const { receiver, poster } = await setup(['127.0.0.1'], (n) => (n === 1 ? 'hang' : { status: 200 }));
    const hung = poster.post({ url: receiver.url, id: 'evt_hung', body: '{}', secrets: [SECRET], timeoutMs: 30_000 });
    await eventually('the attempt reached the receiver', () => receiver.received.length === 1);
    const threads = (poster as unknown as { threads: { worker: Worker | null }[] }).threads;
    await threads[0]!.worker!.terminate();
    await expect(hung).rejects.toThrow('the webhook poster thread stopped (exit code 1) during the attempt');
    // The next attempt on that thread starts a new one.
    await poster.post({ url: receiver.url, id: 'evt_other', body: '{}', secrets: [SECRET], timeoutMs: 5_000 });
    const again = await poster.post({
      url: receiver.url,
      id: 'evt_again',
      body: '{}',
      secrets: [SECRET],
      timeoutMs: 5_000,
    });
    expect(again.statusCode).toBe(200);
    expect(threads[0]!.worker).not.toBeNull();
  });
});
