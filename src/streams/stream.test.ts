import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { unlessAborted } from './stream.js';

describe('unlessAborted', () => {
  it('settles as the promise does while the signal holds, and leaves no listener on the signal', async () => {
    const abort = new AbortController();
    for (let i = 0; i < 1_000; i += 1) await expect(unlessAborted(Promise.resolve(i), abort.signal)).resolves.toBe(i);
    await expect(unlessAborted(Promise.reject(new Error('handler broke')), abort.signal)).rejects.toThrow(
      'handler broke',
    );
    // A subscription's signal lives as long as the subscription: a listener per batch would pile up.
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('resolves undefined once the signal aborts, without waiting for the promise', async () => {
    const abort = new AbortController();
    const never = new Promise<string>(() => {});
    const waiting = unlessAborted(never, abort.signal);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    abort.abort();
    await expect(waiting).resolves.toBeUndefined();
    // Already aborted: at once.
    await expect(unlessAborted(never, abort.signal)).resolves.toBeUndefined();
  });
});
