// The rows of the transactional outbox as its store, the relay and the commit publisher see them.
import type { LoggedEvent } from './company-event-log.js';

export type StreamName = 'gateway.events' | 'gateway.outbound';

export interface OutboxRow {
  id: number;
  stream: StreamName;
  key: string;
  message_id: string;
  payload: string;
  created_at: number;
  published_at: number | null;
  /** The trace context of the change that appended it (docs/tracing.md); null while tracing is off. */
  traceparent: string | null;
}

export interface NewOutboxMessage {
  stream: StreamName;
  key: string;
  /** Stable id of the message (the event id): duplicates after a crash carry the same one. */
  messageId: string;
  payload: unknown;
  /** The payload's JSON text when the caller made it already (JSON.stringify(payload) otherwise). */
  json?: string;
  /**
   * A company event the live stream carries: written to the company event log in the same
   * transaction, whether or not the message ever becomes an outbox row.
   */
  logged?: LoggedEvent;
}

/** A pending row, with its payload already parsed when it was appended in this process. */
export type PendingRow = OutboxRow & { parsed?: unknown };

/**
 * A message appended in the group transaction running now while its publisher runs in the same
 * commit (OutboxStore.publishInCommits): published there, it never becomes a row (id null).
 */
export type InCommitRow = Omit<PendingRow, 'id' | 'published_at'> & { id: null; parsed: unknown };

/** What a publisher publishes: rows of the table, and messages of the transaction running now. */
export type RelayRow = PendingRow | InCommitRow;

/**
 * What publishes outbox rows inside a group commit (the relay on the embedded streams), see
 * OutboxStore.publishInCommits.
 */
export interface CommitPublisher {
  /** Most pending rows of the table taken in one commit. */
  batchSize: number;
  /**
   * Publishes, in the open transaction, `pending` (rows of the table, in id order: marks them) and
   * then `appended` (this transaction's messages, never written to the table); answers what to
   * run once it committed.
   */
  publish: (pending: readonly PendingRow[], appended: readonly InCommitRow[]) => (() => void) | undefined;
  /** Its publish failed (its writes were undone, the messages are pending rows) or the transaction did. */
  onError: (error: unknown) => void;
}
