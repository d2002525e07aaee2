import { describe, expect, it } from 'vitest';
import { EventLogJanitor } from '../../src/outbox/janitor.js';
import { EVENT_LOG_RETENTION_MS } from '../../src/store/pipeline/company-event-log.js';
import { Store } from '../../src/store/store.js';
import { ManualClock } from '../../src/streams/stream.js';
import { storePerTest } from '../helpers/temp-store.js';
import { firstJanitorPass } from '../helpers/wait.js';

let store: Store;
storePerTest('gateway-event-log-janitor-', (opened) => (store = opened));

/** Appends an event of `companyId` created at `createdAt`, as the outbox appends a v2 event. */
const append = (eventId: string, createdAt: number, companyId = 1) =>
  store.transaction(() =>
    store.outbox.append(
      {
        stream: 'gateway.events',
        key: String(companyId),
        messageId: eventId,
        payload: {},
        logged: { companyId, name: 'message.create', envelope: `{"id":"${eventId}"}` },
      },
      createdAt,
    ),
  );
/** Logs an event of company 1, watched by a stream at the event's time. */
const log = (eventId: string, createdAt: number) => {
  store.eventLog.watch(1, createdAt);
  append(eventId, createdAt);
};
const kept = () => store.eventLog.eventsAfter(1, 0, 100).map((e) => e.event_id);

describe('event log janitor', () => {
  it('deletes events past the retention in batches, stops at the first young one, and a pruned id no longer resumes', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    const old = clock.now() - EVENT_LOG_RETENTION_MS - 1_000;
    for (let n = 0; n < 7; n += 1) log(`evt_old${n}`, old + n);
    log('evt_young', clock.now() - 60_000);
    // Written after a young event with an older time (a clock stepped back): past the scan's stop.
    log('evt_oldafteryoung', old + 100);
    const newest = store.eventLog.newestSeq();

    const text = await firstJanitorPass(
      (logger, signal) => new EventLogJanitor({ store, clock, logger, batch: 3 }).run(signal),
      'company event log events',
    );
    expect(text).toContain('"deleted":7');
    expect(kept()).toEqual(['evt_young', 'evt_oldafteryoung']);
    expect(store.eventLog.seqOf(1, 'evt_old6')).toBeUndefined();
    expect(store.eventLog.seqOf(1, 'evt_young')).toBeDefined();
    // Seqs never go back: the next event comes after every one ever written.
    log('evt_next', clock.now());
    expect(store.eventLog.newestSeq()).toBe(newest + 1);
  });

  it("keeps another company's events apart: an id is found only under its own company", () => {
    log('evt_mine', Date.now());
    expect(store.eventLog.seqOf(1, 'evt_mine')).toBeDefined();
    expect(store.eventLog.seqOf(2, 'evt_mine')).toBeUndefined();
    expect(store.eventLog.eventsAfter(2, 0, 10)).toEqual([]);
  });

  it('logs only the companies a stream watched within the retention, and a restart still knows them', () => {
    const now = Date.now();
    append('evt_unwatched', now, 2);
    expect(store.eventLog.eventsAfter(2, 0, 10)).toEqual([]);
    store.eventLog.watch(2, now);
    append('evt_watched', now + 1_000, 2);
    append('evt_after_the_watch', now + EVENT_LOG_RETENTION_MS + 1, 2);
    expect(store.eventLog.eventsAfter(2, 0, 10).map((e) => e.event_id)).toEqual(['evt_watched']);

    const reopened = Store.open(store.db.name);
    try {
      reopened.transaction(() =>
        reopened.outbox.append(
          {
            stream: 'gateway.events',
            key: '2',
            messageId: 'evt_after_restart',
            payload: {},
            logged: { companyId: 2, name: 'message.create', envelope: '{}' },
          },
          now + 2_000,
        ),
      );
      expect(reopened.eventLog.eventsAfter(2, 0, 10).map((e) => e.event_id)).toEqual([
        'evt_watched',
        'evt_after_restart',
      ]);
    } finally {
      reopened.close();
    }
  });
});
