import { describe, expect, it } from 'vitest';
import { EndpointPacer } from './endpoint-pacer.js';

const cancelled = () => new Error('cancelled');
const later = (ms: number) => performance.now() + ms;

describe('EndpointPacer keeps a pace only for the keys attempted lately', () => {
  it('forgets a key once its attempts are answered and its spacing has passed', async () => {
    const pacer = new EndpointPacer();
    for (const key of ['a', 'b', 'c']) {
      await pacer.take(key, 100, cancelled);
      pacer.answered(key, 200, null, 60_000);
    }
    expect(pacer.keys).toBe(3);
    pacer.forgetIdle(later(0)); // 10 ms between two attempts at 100/s: not passed yet
    expect(pacer.keys).toBe(3);
    pacer.forgetIdle(later(11));
    expect(pacer.keys).toBe(0);
  });

  it('keeps a key with an attempt on the wire, and forgets it once that attempt is answered, even without an answer from the receiver', async () => {
    const pacer = new EndpointPacer();
    await pacer.take('open', 1_000, cancelled);
    pacer.forgetIdle(later(60_000));
    expect(pacer.keys).toBe(1);
    pacer.answered('open', null, null, 60_000);
    pacer.forgetIdle(later(60_000));
    expect(pacer.keys).toBe(0);
  });

  it('keeps a key slowed by a 429 until it is back at its limit and the hold has passed', async () => {
    const pacer = new EndpointPacer();
    await pacer.take('slow', 1_000, cancelled);
    pacer.answered('slow', 429, '1', 60_000);
    pacer.forgetIdle(later(2_000));
    expect(pacer.keys).toBe(1); // the hold passed, the pace is still halved
    // Each success brings a tenth of the limit back: six of them restore 500/s to 1,000/s.
    for (let n = 0; n < 6; n += 1) pacer.answered('slow', 200, null, 60_000);
    pacer.forgetIdle(later(500));
    expect(pacer.keys).toBe(1); // still held by the 429's Retry-After
    pacer.forgetIdle(later(1_100));
    expect(pacer.keys).toBe(0);
  });

  it('keeps a key whose attempt waits for its turn, and lets the waiting attempt go at its pace', async () => {
    const pacer = new EndpointPacer();
    await pacer.take('busy', 20, cancelled);
    pacer.answered('busy', 200, null, 60_000);
    const next = pacer.take('busy', 20, cancelled); // 50 ms after the first
    pacer.forgetIdle(later(1_000));
    expect(pacer.keys).toBe(1);
    await next;
    pacer.answered('busy', 200, null, 60_000);
    pacer.forgetIdle(later(1_000));
    expect(pacer.keys).toBe(0);
  });

  it('looks for idle keys while attempts are taken: many endpoints attempted once each leave few paces', async () => {
    const pacer = new EndpointPacer();
    for (let n = 0; n < 1_024; n += 1) {
      await pacer.take(`endpoint-${n}`, 1_000_000, cancelled);
      pacer.answered(`endpoint-${n}`, 200, null, 60_000);
    }
    expect(pacer.keys).toBeLessThanOrEqual(256);
  });

  it('does not count a cancelled wait as open', async () => {
    const pacer = new EndpointPacer();
    await pacer.take('gone', 1, cancelled);
    pacer.answered('gone', 200, null, 60_000);
    const waiting = pacer.take('gone', 1, cancelled); // a second away
    pacer.cancelWaiting();
    await expect(waiting).rejects.toThrow('cancelled');
    pacer.forgetIdle(later(1_001));
    expect(pacer.keys).toBe(0);
  });
});
