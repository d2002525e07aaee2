import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { WebhookEndpointRow } from '../../src/store/resources/webhooks.js';
import { storePerTest } from '../helpers/temp-store.js';

let store: Store;
storePerTest('gateway-unsent-', (opened) => (store = opened));

const ENDPOINT = { id: 7 } as WebhookEndpointRow;
const NOW = 1_800_000_000_000;

function delivery(name: string): string {
  const event = {
    id: `evt_${name}`,
    company_id: 1,
    name: 'message.create',
    created_at: new Date(NOW).toISOString(),
    body: { text: name },
  };
  return store.deliveries.createForEvent(event, [ENDPOINT], NOW)[0]!;
}
const due = () =>
  store.db
    .prepare<[number], { event_id: string }>(
      'SELECT event_id FROM webhook_deliveries WHERE next_attempt_at = ? ORDER BY seq',
    )
    .all(NOW + 1)
    .map((r) => r.event_id);

describe('unsent automatic attempts after a restart', () => {
  it('makes due only the pending deliveries not held, not scheduled and without an automatic job in the stream log', () => {
    const append = (stream: string, messageId: string) =>
      store.transaction(() =>
        store.streamMessages.appendHere(
          stream,
          [{ key: '1:7', messageId, value: '{}', notBefore: NOW, traceparent: null }],
          NOW,
        ),
      );
    delivery('unsent');
    append('gateway.events', `${delivery('queued')}:1`);
    const held = delivery('held');
    store.db.prepare("UPDATE webhook_deliveries SET held_reason = 'ordering' WHERE id = ?").run(held);
    const retrying = delivery('retrying');
    store.db
      .prepare('UPDATE webhook_deliveries SET auto_attempts = 1, next_attempt_at = ? WHERE id = ?')
      .run(NOW + 60_000, retrying);
    // A retry handed out, its job kept in memory only: lost with the process.
    const retryUnsent = delivery('retry_unsent');
    store.db
      .prepare('UPDATE webhook_deliveries SET auto_attempts = 1, attempt_count = 1 WHERE id = ?')
      .run(retryUnsent);
    // A retry handed out whose job is in the log, numbered before a manual attempt recorded since.
    const retryQueued = delivery('retry_queued');
    store.db
      .prepare('UPDATE webhook_deliveries SET auto_attempts = 1, attempt_count = 2 WHERE id = ?')
      .run(retryQueued);
    append('gateway.retries', `${retryQueued}:2`);
    // Only a manual attempt waits in the log: the automatic one is owed still.
    const replayQueued = delivery('replay_queued');
    store.db
      .prepare('UPDATE webhook_deliveries SET auto_attempts = 2, attempt_count = 2 WHERE id = ?')
      .run(replayQueued);
    append('gateway.replays', `${replayQueued}:manual:3`);
    const delivered = delivery('delivered');
    store.db
      .prepare("UPDATE webhook_deliveries SET status = 'delivered', auto_attempts = 1 WHERE id = ?")
      .run(delivered);
    const failed = delivery('failed');
    store.db.prepare("UPDATE webhook_deliveries SET status = 'failed', auto_attempts = 8 WHERE id = ?").run(failed);
    const replayedOnly = delivery('replayed_by_hand_only');
    store.db.prepare('UPDATE webhook_deliveries SET attempt_count = 1 WHERE id = ?').run(replayedOnly);
    // Another stream's message whose id looks like nothing of a delivery.
    append('gateway.inbound', 'chn_1:fact:1700000000000:abc');

    expect(store.unsent.scheduleUnsent(NOW + 1)).toBe(4);
    expect(due()).toEqual(['evt_unsent', 'evt_retry_unsent', 'evt_replay_queued', 'evt_replayed_by_hand_only']);
    // Run again (another restart before the scheduler sent them): nothing more, nothing twice.
    expect(store.unsent.scheduleUnsent(NOW + 2)).toBe(0);
  });
});
