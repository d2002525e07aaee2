import { createRequire } from 'node:module';

/** The part of kafkajs's per-connection request queue (src/network/requestQueue) that is mended here. */
interface RequestQueuePrototype {
  pending: unknown[];
  scheduleCheckPendingRequests(this: RequestQueuePrototype): void;
}

/**
 * Stops kafkajs 2.2.4's idle timer loop (tulios/kafkajs#1556, the fix proposed in #1667). After
 * any answer, every broker connection's request queue re-arms a timer with a negative delay (1 ms)
 * whether or not a request waits, so each connection wakes its process about a thousand times a
 * second for nothing: an idle worker with a producer and a consumer spent 36 ms of CPU per second.
 * A check is needed only while a request is pending: `push` schedules one when it queues a
 * request, and every answer or timeout checks the queue itself.
 */
export function mendIdleRequestQueue(): void {
  const require = createRequire(import.meta.url);
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueuePrototype };
  const prototype = RequestQueue.prototype;
  const scheduleCheck = prototype.scheduleCheckPendingRequests;
  if (typeof scheduleCheck !== 'function')
    throw new Error('kafkajs request queue has no scheduleCheckPendingRequests: re-check the idle timer mend');
  if ((scheduleCheck as { mended?: boolean }).mended) return;
  const mended = function (this: RequestQueuePrototype) {
    if (this.pending.length > 0) scheduleCheck.call(this);
  };
  mended.mended = true;
  prototype.scheduleCheckPendingRequests = mended;
}
