import type { Config } from '../config/config.js';
import { CONSUMER_GROUP, STREAM, retryTier } from '../dispatch/jobs.js';
import type { Store } from '../store/store.js';
import type { StreamBus, StreamPosition } from '../streams/stream.js';
import type { MetricSources } from './metrics.js';

/** The consumer groups whose lag the core reports: the dispatcher's streams and the core's attempts. */
export function consumerPositions(config: Pick<Config, 'webhooks'>): StreamPosition[] {
  const tiers = config.webhooks.retryScheduleMs.slice(1).map((_, i) => retryTier(i + 2));
  return [
    ...[STREAM.events, STREAM.replays, ...tiers].map((stream) => ({ stream, group: CONSUMER_GROUP.dispatcher })),
    { stream: STREAM.attempts, group: CONSUMER_GROUP.core },
  ];
}

/** The scrape-time sources of a core (or all-in-one) process: its store and its streams. */
export function coreSources(store: Store, bus: StreamBus, config: Pick<Config, 'webhooks'>): MetricSources {
  const positions = consumerPositions(config);
  return {
    outbox: () => store.outbox.lag(),
    endpointsDisabled: () => store.webhooks.countDisabledByGateway(),
    streamLag: async () => (bus.lag === undefined ? [] : bus.lag(positions)),
  };
}
