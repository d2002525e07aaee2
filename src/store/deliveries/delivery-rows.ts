import type { HeldReason } from './held-deliveries.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  seq: number;
  event_id: string;
  event_name: string;
  company_id: number;
  endpoint_id: number;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  /** Automatic attempts made: the step of the retry schedule reached. */
  auto_attempts: number;
  /** When the next automatic attempt is due; null when none is waiting (or it is on its way). */
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The trace context of the publish that created it (docs/tracing.md): its retries and replays link to it. */
  traceparent: string | null;
  /** Why this pending delivery is held (src/store/deliveries/held-deliveries.ts), or null when it is not. */
  held_reason: HeldReason | null;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'gone';

/** One webhook attempt to record: its row, and what moves its delivery and its endpoint's health. */
export interface AttemptToRecord {
  /** Made by the dispatcher: recording the same attempt twice changes nothing. */
  id: string;
  delivery_id: string;
  company_id: number;
  endpoint_id: number;
  /** Number of this attempt among all attempts of the delivery (automatic and manual). */
  number: number;
  /** Place of an automatic attempt in the retry schedule (1 = the first); null for a manual replay. */
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
}

/** An attempt as stored: the record without what the delivery row already holds. */
export type AttemptRow = Omit<AttemptToRecord, 'company_id' | 'endpoint_id' | 'next_attempt_at' | 'step'>;

/**
 * The decision whether an attempt that did not deliver disables its endpoint, given since when the
 * endpoint has been failing (null: no failure streak recorded): the reason to record, or null. The
 * store executes it; the rule is the dispatcher's (src/dispatch/endpoint-health.ts).
 */
export type DisableRule = (attempt: AttemptToRecord, failingSince: number | null) => string | null;

/**
 * What recording attempts changed beyond the attempts themselves, for the caller to report in the
 * same transaction (the operational events): deliveries that moved to `failed`, and endpoints the
 * rule disabled.
 */
export interface AttemptEffects {
  failed: string[];
  disabled: { endpointId: number; reason: string }[];
}
