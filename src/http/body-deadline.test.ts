import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestTimeout } from '../errors/errors.js';
import { withinBodyDeadline } from './body-deadline.js';

/** A request whose body has all arrived (`complete`) or is still arriving. */
function requestWith(complete: boolean): IncomingMessage & { resumed: boolean } {
  const req = Object.assign(new EventEmitter(), {
    complete,
    resumed: false,
    resume() {
      req.resumed = true;
      return req;
    },
    destroy: () => req,
  });
  return req as unknown as IncomingMessage & { resumed: boolean };
}

/** A read of the body that ends `ms` from now with `value`. */
function readingFor<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

describe('withinBodyDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers 408 for a body still arriving at its deadline, and drops what the client still sends', async () => {
    const req = requestWith(false);
    const outcome = withinBodyDeadline(req, 1_000, readingFor(5_000, 'late')).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(999);
    expect(req.resumed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await outcome;
    expect(error).toBeInstanceOf(RequestTimeout);
    expect((error as RequestTimeout).message).toBe(
      'The request body did not arrive within 1000 ms (GATEWAY_BODY_TIMEOUT).',
    );
    expect(req.resumed).toBe(true);
  });

  it('gives a body still arriving its value when it ends before the deadline', async () => {
    const outcome = withinBodyDeadline(requestWith(false), 1_000, readingFor(999, 'in time'));
    await vi.advanceTimersByTimeAsync(999);
    await expect(outcome).resolves.toBe('in time');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sets no deadline for a body that has all arrived: a slow read is the server, not the client', async () => {
    const req = requestWith(true);
    const outcome = withinBodyDeadline(req, 1_000, readingFor(3_000, 'arrived'));
    expect(vi.getTimerCount()).toBe(1); // the read's own
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(outcome).resolves.toBe('arrived');
    expect(req.resumed).toBe(false);
  });

  it('sets no deadline without GATEWAY_BODY_TIMEOUT', async () => {
    const outcome = withinBodyDeadline(requestWith(false), undefined, readingFor(60_000, 'whenever'));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(outcome).resolves.toBe('whenever');
  });
});
