import type { EventRecord } from '../domain/events.js';

/** Streams of the pipeline and the partition counts the daemon creates them with (Kafka). */
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

export const CONSUMER_GROUP = { dispatcher: 'gateway-dispatcher', core: 'gateway-core' } as const;

/**
 * One webhook attempt to make: the event, its target endpoint with the secrets that sign it, and the
 * attempt number. It carries everything a stateless worker needs (no store access). The core builds
 * it just before the attempt is due (fan-out, retry scheduler, replay), from the endpoint as it is then.
 */
export interface DeliveryJob {
  delivery_id: string;
  event: EventRecord;
  endpoint: { id: number; url: string; secrets: string[] };
  /** Number of this attempt among all attempts of the delivery (automatic and manual). */
  attempt: number;
  /** Place of an automatic attempt in the retry schedule (1 = the first); null for a manual replay. */
  step: number | null;
  trigger: 'auto' | 'manual';
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'gone';

/** One attempt as recorded by the core (sent back on gateway.attempts). */
export interface AttemptRecord {
  /** Made by the dispatcher: recording the same record twice changes nothing. */
  id: string;
  delivery_id: string;
  company_id: number;
  endpoint_id: number;
  number: number;
  /** The job's step of the automatic schedule (null for a manual replay). */
  step: number | null;
  trigger: 'auto' | 'manual';
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** When the next automatic attempt is due (outcome 'retry'). */
  next_attempt_at: number | null;
  /**
   * The event's `created_at` (ISO 8601), for the end-to-end latency metric; records of older
   * dispatchers lack it, and the core then reads it from the delivery.
   */
  event_created_at?: string;
}

/** The message key of a delivery job: per endpoint, so one endpoint never waits behind another. */
export function jobKey(job: Pick<DeliveryJob, 'event' | 'endpoint'>): string {
  return `${job.event.company_id}:${job.endpoint.id}`;
}
