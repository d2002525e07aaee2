import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { mendIdleRequestQueue } from './idle-request-queue.js';

const require = createRequire(import.meta.url);
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as new (options: object) => {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
};

function queue() {
  const quiet = () => undefined;
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: true,
    clientId: 'test',
    broker: '127.0.0.1:1',
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
}

describe('kafkajs request queue, mended (idle-request-queue.ts)', () => {
  it('arms no timer while no request waits, so an idle connection never wakes its process', () => {
    mendIdleRequestQueue();
    const idle = queue();
    idle.scheduleCheckPendingRequests();
    expect(idle.throttleCheckTimeoutId).toBeNull();
    idle.destroy();
  });

  it('still schedules a check while a request waits out a throttle', () => {
    mendIdleRequestQueue();
    const throttled = queue();
    throttled.pending.push({});
    throttled.throttledUntil = Date.now() + 60_000;
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).not.toBeNull();
    throttled.destroy();
  });

  it('mends once, however often it is called', () => {
    mendIdleRequestQueue();
    const once = RequestQueue.prototype.scheduleCheckPendingRequests;
    mendIdleRequestQueue();
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(once);
  });
});
