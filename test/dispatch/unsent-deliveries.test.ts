import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { WebhookEndpointRow } from '../../src/store/webhooks.js';
import { storePerTest } from '../helpers/temp-store.js';

let store: Store;
storePerTest('gateway-unsent-', (opened) => (store = opened));

const ENDPOINT = { id: 7 } as WebhookEndpointRow;
const NOW = 1_800_000_000_000;

function delivery(name: string): string {
  const event = { id: `evt_${name}`, company_id: 1, name: 'message.create', created_at: new Date(NOW).toISOString(), body: { text: name } };
  return store.deliveries.createForEvent(event, [ENDPOINT], NOW)[0]!;
}
const due = () =>
  store.db
    .prepare<[number], { event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE next_attempt_at = ? ORDER BY seq')
    .all(NOW + 1)
    .map((r) => r.event_id);

describe('unsent first attempts after a restart', () => {
  it('makes due only the pending deliveries never attempted, not held, not scheduled and without a job in the stream log', () => {
    delivery('unsent');
    const queued = delivery('queued');
    store.transaction(() => store.streamMessages.appendHere('gateway.events', [{ key: '1:7', messageId: `${queued}:1`, value: '{}', notBefore: NOW, traceparent: null }], NOW));
    const held = delivery('held');
    store.db.prepare("UPDATE webhook_deliveries SET held_reason = 'ordering' WHERE id = ?").run(held);
    const retrying = delivery('retrying');
    store.db.prepare('UPDATE webhook_deliveries SET auto_attempts = 1, next_attempt_at = ? WHERE id = ?').run(NOW + 60_000, retrying);
    const handedOut = delivery('retry_handed_out');
    store.db.prepare('UPDATE webhook_deliveries SET auto_attempts = 1 WHERE id = ?').run(handedOut);
    const delivered = delivery('delivered');
    store.db.prepare("UPDATE webhook_deliveries SET status = 'delivered', auto_attempts = 1 WHERE id = ?").run(delivered);
    const replayedOnly = delivery('replayed_by_hand_only');
    store.db.prepare('UPDATE webhook_deliveries SET attempt_count = 1 WHERE id = ?').run(replayedOnly);

    expect(store.unsent.scheduleUnsent(NOW + 1)).toBe(2);
    expect(due()).toEqual(['evt_unsent', 'evt_replayed_by_hand_only']);
    // Run again (another restart before the scheduler sent them): nothing more, nothing twice.
    expect(store.unsent.scheduleUnsent(NOW + 2)).toBe(0);
  });
});
