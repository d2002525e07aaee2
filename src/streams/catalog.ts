import type { BrokerDestination } from '../../schemas/objects/destination.js';
import type { AttemptToRecord } from '../store/deliveries/delivery-rows.js';
import type { StreamSpec } from './stream.js';

export type { AttemptOutcome } from '../store/deliveries/delivery-rows.js';
/**
 * The stream catalog: the streams of the pipeline, the partition counts the daemon creates them
 * with (Kafka), the consumer groups, and the webhook messages they carry. The provider messages
 * (send jobs on gateway.outbound, provider facts on gateway.inbound) are domain shapes, defined in
 * src/domain/messaging.ts and src/domain/provider-facts.ts.
 */
export const STREAM = {
  events: 'gateway.events',
  outbound: 'gateway.outbound',
  inbound: 'gateway.inbound',
  /** Automatic retries, published by the core's scheduler when they are due. */
  retries: 'gateway.retries',
  attempts: 'gateway.attempts',
  replays: 'gateway.replays',
} as const;

export const PARTITIONS = { keyed: 6, retries: 6, attempts: 6, replays: 3 } as const;

/** Every stream and the partition count the daemon creates it with (docs/operations.md, "Event pipeline"). */
export const STREAM_SPECS: readonly StreamSpec[] = [
  { name: STREAM.events, partitions: PARTITIONS.keyed },
  { name: STREAM.outbound, partitions: PARTITIONS.keyed },
  { name: STREAM.inbound, partitions: PARTITIONS.keyed },
  { name: STREAM.retries, partitions: PARTITIONS.retries },
  { name: STREAM.attempts, partitions: PARTITIONS.attempts },
  { name: STREAM.replays, partitions: PARTITIONS.replays },
];

export const CONSUMER_GROUP = {
  dispatcher: 'gateway-dispatcher',
  core: 'gateway-core',
  sender: 'gateway-sender',
} as const;

/**
 * One event on `gateway.events`, as the outbox stores it and the dispatcher reads it. `body` is
 * exactly what the company's endpoints receive; `id` is the `webhook-id` of every delivery of it.
 */
export interface EventRecord {
  id: string;
  company_id: number;
  /** `<type>.<event>`, the name endpoint filters match: `message.create`, `channel.qr_code`, `job.executed`. */
  name: string;
  created_at: string;
  body: Record<string, unknown>;
}

/**
 * One webhook attempt to make: the event, its target endpoint with the secrets that sign it, and the
 * attempt number. It carries everything a stateless worker needs (no store access). The core builds
 * it just before the attempt is due (fan-out, retry scheduler, replay), from the endpoint as it is then.
 */
export interface DeliveryJob {
  delivery_id: string;
  event: EventRecord;
  endpoint: JobEndpoint;
  /** Number of this attempt among all attempts of the delivery (automatic and manual). */
  attempt: number;
  /** Place of an automatic attempt in the retry schedule (1 = the first); null for a manual replay. */
  step: number | null;
  trigger: 'auto' | 'manual';
}

/**
 * The endpoint of a job. The options are there only when the endpoint has them (the jobs of
 * endpoints without them stay as small as they were): `rate_limit` in deliveries per second, which
 * the dispatcher paces the endpoint's attempts to; `ordering: 'strict'`, whose attempt records the
 * core watches to let the endpoint's next delivery out; `retry_schedule`, the endpoint's own seconds
 * before each retry, which the dispatcher's policy follows instead of the gateway-wide schedule.
 */
export interface JobEndpoint {
  id: number;
  url: string;
  secrets: string[];
  rate_limit?: number;
  ordering?: 'strict';
  retry_schedule?: number[];
  /**
   * A broker endpoint's type and settings, credentials included (src/dispatch/destinations/):
   * absent for a webhook, whose job stays as it was.
   */
  destination?: BrokerDestination;
}

/**
 * One attempt as the dispatcher reports it on gateway.attempts and the core records it, with the
 * event's `created_at` (ISO 8601) for the end-to-end latency metric; when it is missing the core
 * reads it from the delivery.
 */
export interface AttemptRecord extends AttemptToRecord {
  event_created_at?: string;
  /** Set for an attempt of a strictly ordered endpoint: its end may let the next delivery out. */
  ordered?: true;
}

/** The message key of a delivery job: per endpoint, so one endpoint never waits behind another. */
export function jobKey(job: Pick<DeliveryJob, 'event' | 'endpoint'>): string {
  return `${job.event.company_id}:${job.endpoint.id}`;
}

/**
 * The stream a retry or a replay goes on. A rate-limited endpoint's attempts all go on
 * gateway.events, keyed by endpoint: one dispatcher consumes them, so one pace holds for all of
 * them (on their own streams, retries and replays could be consumed by another worker process).
 */
export function redeliveryStream(job: Pick<DeliveryJob, 'endpoint'>, usual: string): string {
  return job.endpoint.rate_limit === undefined ? usual : STREAM.events;
}
