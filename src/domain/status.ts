import type { MessageStatus } from '../store/resources/messages.js';

const RANK: Record<Exclude<MessageStatus, 'error'>, number> = { created: 0, sent: 1, delivered: 2, read: 3 };

/**
 * Where a message's status goes when the provider reports `reported` (docs/design.md section 5): only
 * forward along created → sent → delivered → read (skipping is allowed); `error` ends a send that
 * has not reached the recipient (from created or sent) and is terminal. null: nothing changes — a
 * late or repeated report, anything after `error`, a failure after delivery.
 */
export function nextStatus(current: MessageStatus, reported: MessageStatus): MessageStatus | null {
  if (current === 'error') return null;
  if (reported === 'error') return current === 'created' || current === 'sent' ? 'error' : null;
  return RANK[reported] > RANK[current] ? reported : null;
}
