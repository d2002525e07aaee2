import type { EventRecord } from '../domain/events.js';

/** Streams of the pipeline and the partition counts the daemon creates them with (Kafka). */
export const STREAM = {
  events: 'gateway.events',
  outbound: 'gateway.outbound',
  inbound: 'gateway.inbound',
  attempts: 'gateway.attempts',
  replays: 'gateway.replays',
} as const;

/** Retry tier n carries deliveries waiting for their (n+1)th attempt. */
export function retryTier(attemptNumber: number): string {
  return `gateway.retry.${attemptNumber - 1}`;
}

export const PARTITIONS = { keyed: 6, retryTier: 3, attempts: 6, replays: 3 } as const;

export const CONSUMER_GROUP = { dispatcher: 'gateway-dispatcher', core: 'gateway-core' } as const;

/**
 * One webhook delivery to do: the event, its target endpoint with the secrets that sign it, and the
 * attempt number. It carries everything a stateless worker needs (no store access).
 */
export interface DeliveryJob {
  delivery_id: string;
  event: EventRecord;
  endpoint: { id: number; url: string; secrets: string[] };
  attempt: number;
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
  trigger: 'auto' | 'manual';
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** When the next automatic attempt is due (outcome 'retry'). */
  next_attempt_at: number | null;
}

/** The message key of a delivery job: per endpoint, so one endpoint never waits behind another. */
export function jobKey(job: Pick<DeliveryJob, 'event' | 'endpoint'>): string {
  return `${job.event.company_id}:${job.endpoint.id}`;
}
