import { getEventListeners } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { pause } from '../streams/stream.js';
import { repeatPasses, supervise, type Wake } from './supervisor.js';
import { eventually } from '../../test/helpers/wait.js';

/** A wake source that counts its live subscriptions and can fire them. */
function wakeSource() {
  const live = new Set<() => void>();
  const wake: Wake = (wakeUp) => {
    live.add(wakeUp);
    return () => live.delete(wakeUp);
  };
  return {
    wake,
    live: () => live.size,
    fire: () => {
      const waiting = [...live];
      live.clear();
      for (const wakeUp of waiting) wakeUp();
    },
  };
}

const logger = pino({ level: 'silent' });

describe('repeatPasses', () => {
  it('subscribes one wake per idle pause and drops it when the pause ends, woken or not', async () => {
    const source = wakeSource();
    const abort = new AbortController();
    let passes = 0;
    let maxLive = 0;
    const loop = repeatPasses(
      abort.signal,
      async () => {
        passes += 1;
        maxLive = Math.max(maxLive, source.live());
        return 'idle';
      },
      { idleMs: 1, logger, what: 'test pass', wake: source.wake },
    );
    await eventually('fifty passes', () => passes >= 50);
    // Each pause ran out by itself: its subscription was dropped before the next pass.
    expect(maxLive).toBe(0);
    expect(source.live()).toBeLessThanOrEqual(1);
    abort.abort();
    await loop;
    expect(source.live()).toBe(0);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });

  it('runs the next pass as soon as the wake fires, long before idleMs', async () => {
    const source = wakeSource();
    const abort = new AbortController();
    const passAt: number[] = [];
    const loop = repeatPasses(
      abort.signal,
      async () => {
        passAt.push(performance.now());
        return 'idle';
      },
      { idleMs: 60_000, logger, what: 'test pass', wake: source.wake },
    );
    while (source.live() === 0) await new Promise((resolve) => setImmediate(resolve));
    const firedAt = performance.now();
    source.fire();
    while (passAt.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(passAt[1]! - firedAt).toBeLessThan(1_000);
    abort.abort();
    await loop;
    expect(source.live()).toBe(0);
  });
});

describe('supervise', () => {
  it('lets its workers wait on the shared signal many at once without a leak warning, and stops them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      let waiting = 0;
      const worker = {
        name: 'many waits',
        async run(signal: AbortSignal) {
          // As a sender with 32 jobs in flight, each pausing before its next try.
          await Promise.all(
            Array.from({ length: 32 }, async () => {
              waiting += 1;
              await pause(60_000, signal);
            }),
          );
        },
      };
      const supervisor = supervise([worker], logger);
      while (waiting < 32) await new Promise((resolve) => setImmediate(resolve));
      await supervisor.stop();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
