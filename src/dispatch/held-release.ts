import type { Store } from '../store/store.js';

/** Held deliveries let out per endpoint and pass, at most (an endpoint re-enabled with a large backlog goes out over several passes). */
const RELEASE_PAGE = 200;

/** Why the held deliveries of an endpoint that no longer exists end. */
export const ENDPOINT_GONE = 'the endpoint was deleted while the delivery was held';

/**
 * Lets held deliveries out (the retry scheduler's first step of every pass): those of an active
 * endpoint without strict ordering all go, oldest first, a page per pass; a strictly ordered
 * endpoint lets its oldest held delivery out once the one let out before it was delivered or
 * failed, and makes it its head. A released delivery is due at once, so the same pass of the
 * scheduler hands it to the dispatcher (crash-safe like any due retry). The held deliveries of a
 * deleted endpoint fail; those of a disabled one wait. Answers how many were let out.
 *
 * Endpoints are found through the index of held deliveries, one seek per endpoint that has any:
 * a pass costs nothing when nothing is held.
 */
export function releaseHeld(store: Store, now: number): number {
  let released = 0;
  for (let after = 0; ;) {
    const endpointId = store.held.nextEndpointWithHeld(after);
    if (endpointId === undefined) return released;
    after = endpointId;
    released += store.transaction(() => releaseEndpoint(store, endpointId, now));
  }
}

function releaseEndpoint(store: Store, endpointId: number, now: number): number {
  const endpoint = store.webhooks.findById(endpointId);
  if (endpoint === undefined) {
    store.held.failAll(endpointId, ENDPOINT_GONE, now);
    return 0;
  }
  if (endpoint.active !== 1) return 0;
  if (endpoint.ordering !== 'strict') return store.held.release(store.held.oldest(endpointId, RELEASE_PAGE), now);
  if (store.held.orderState(endpointId).busy) return 0;
  const [next] = store.held.oldest(endpointId, 1);
  if (next === undefined) return 0;
  store.held.setHead(endpointId, next);
  return store.held.release([next], now);
}
