/**
 * What the provider reports of the company's own outgoing messages, applied in the callback's
 * transaction (src/domain/incoming.ts): status reports, and the sender's outcome of a send with the
 * statuses that arrived before it.
 */
import type { SendOutcomeItem, StatusItem } from './provider-facts.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { Store } from '../store/store.js';
import { finishV1Job } from './channel-events.js';
import { emitMessageUpdate, parseDetails } from './message-changes.js';
import { nextStatus } from './status.js';
import type { Presenters } from '../presenters/presenters.js';

/** A status report moves an outgoing message forward only (src/domain/status.ts); `message.update` when it moved. Answers the events written. */
export function applyStatus(
  store: Store,
  channel: ChannelRow,
  item: StatusItem,
  presenters: Presenters,
  now: Date,
): number {
  const message = store.messages.findByChannelExternalId(channel.id, item.externalId);
  // Not known yet: the provider's status may overtake the sender's outcome. It is kept until the
  // outcome records the id (a message sent by other means never gets one: pruned after a day).
  if (message === undefined) {
    store.earlyStatuses.keep(channel.id, item.externalId, item.status, item.error, now.getTime());
    return 0;
  }
  if (message.income === 1) return 0;
  const to = nextStatus(message.status, item.status);
  if (to === null) return 0;
  const details =
    item.error === undefined ? parseDetails(message) : { ...(parseDetails(message) ?? {}), ...item.error };
  const moved = store.messages.moveStatus(message.id, message.status, to, details);
  return moved === undefined ? 0 : emitMessageUpdate(store, moved, presenters, now);
}

/**
 * A sender's outcome: the provider took the message (`external_id` filled, status `sent`) or refused
 * it for good (`error`, `details.errors`), each with `message.update`, plus the v1 job webhook for v1
 * jobs. Only a message still waiting for its outcome (outgoing, no provider id, `sent` or `created`)
 * moves; a repeated outcome changes nothing.
 */
export function applySendOutcome(
  store: Store,
  channel: ChannelRow,
  item: SendOutcomeItem,
  presenters: Presenters,
  now: Date,
): number {
  const message = store.messages.findById(item.messageId);
  if (message === undefined || message.channel_id !== channel.id || !awaitsOutcome(message)) return 0;
  let moved: MessageRow | undefined;
  if (item.outcome === 'sent') {
    moved = item.externalId === null ? undefined : store.messages.recordSent(message.id, item.externalId);
    // No id, or an id the channel already holds (an echo of this send stored first): sent all the same.
    moved ??=
      message.status === 'created'
        ? store.messages.moveStatus(message.id, 'created', 'sent', parseDetails(message))
        : undefined;
  } else {
    const errors = [
      ...((parseDetails(message)?.errors as unknown[] | undefined) ?? []),
      item.error ?? { code: 'unknown', title: 'The provider refused the message.' },
    ];
    moved = store.messages.moveStatus(message.id, message.status, 'error', {
      ...(parseDetails(message) ?? {}),
      errors,
    });
  }
  if (moved === undefined)
    return item.v1Job && item.outcome === 'sent' ? finishJob(store, item, message.external_id, now) : 0;
  let events = emitMessageUpdate(store, moved, presenters, now);
  // Statuses that arrived before this outcome, in the order of the status moves.
  if (moved.external_id !== null) {
    store.earlyStatuses.prune(now.getTime() - EARLY_STATUS_TTL_MS);
    const early = store.earlyStatuses
      .take(channel.id, moved.external_id)
      .sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status));
    for (const row of early) {
      events += applyStatus(
        store,
        channel,
        {
          kind: 'status',
          externalId: moved.external_id,
          status: row.status,
          at: row.created_at,
          ...(row.error === null ? {} : { error: JSON.parse(row.error) as Record<string, unknown> }),
        },
        presenters,
        now,
      );
    }
  }
  if (item.v1Job) events += finishJob(store, item, moved.external_id, now);
  return events;
}

/** An outgoing message the sender has not reported on yet. */
function awaitsOutcome(message: MessageRow): boolean {
  return (
    message.income === 0 && message.external_id === null && (message.status === 'sent' || message.status === 'created')
  );
}

/** Finishes the v1 job of a write-first send with its outcome (finishV1Job). Answers the events written. */
function finishJob(store: Store, item: SendOutcomeItem, externalId: string | null, now: Date): number {
  const outcome =
    item.outcome === 'sent'
      ? { sent: true as const, externalId }
      : { sent: false as const, reason: item.error?.title ?? 'The provider refused the message.' };
  return finishV1Job(store, item.jobId, outcome, now);
}

/** How long a status of an unknown provider id waits for the send outcome that names it. */
const EARLY_STATUS_TTL_MS = 24 * 3_600_000;
const STATUS_ORDER = ['sent', 'delivered', 'read', 'error'];
