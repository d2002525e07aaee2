import { CONSUMER_GROUP, STREAM } from '../streams/catalog.js';
import type { Store } from '../store/store.js';
import type { StreamBus, StreamPosition } from '../streams/stream.js';
import type { MetricSources } from '../metrics/state-gauges.js';

/** The consumer groups whose lag the core reports: the dispatcher's, the senders' and the core's own. */
export const CONSUMER_POSITIONS: readonly StreamPosition[] = [
  ...[STREAM.events, STREAM.retries, STREAM.replays].map((stream) => ({ stream, group: CONSUMER_GROUP.dispatcher })),
  { stream: STREAM.outbound, group: CONSUMER_GROUP.sender },
  { stream: STREAM.attempts, group: CONSUMER_GROUP.core },
  { stream: STREAM.inbound, group: CONSUMER_GROUP.core },
];

/** The scrape-time sources of a core (or all-in-one) process: its store and its streams. */
export function coreSources(store: Store, bus: StreamBus): MetricSources {
  return {
    outbox: () => store.outbox.lag(),
    endpointsDisabled: () => store.webhooks.countDisabledByGateway(),
    streamLag: async () => (bus.lag === undefined ? [] : bus.lag(CONSUMER_POSITIONS)),
    streamClients: bus.clientHealth?.bind(bus),
  };
}
