// Stores filled in bulk with direct SQL through the store's schema, for the scenarios that need a
// big store (scenario 4) or a big backlog (the bulk replay).
import fs from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Fills the store of a stopped daemon with `messages` incoming messages spread over `conversations`
 * conversations (one contact each) of the channel, with a callback receipt each: a larger store
 * than the daemon writes (an update carrying a message claims no receipt), so the scenarios run
 * against a store no smaller than a real one. Direct SQL through the store's schema, in bulk.
 */
export function prefillStore(dbFile, { companyId, channelId, conversations, messages }) {
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @conversations)
       INSERT INTO contacts (company_id, channel_id, external_id, external_public_id, name, created_at, updated_at)
       SELECT @companyId, @channelId, 'pre' || i, '@pre' || i, 'Prefilled ' || i, @now, @now FROM n`,
    ).run({ companyId, channelId, conversations, now });
    db.prepare(
      `INSERT INTO conversations (company_id, channel_id, contact_id, created_at, last_updated_at)
       SELECT company_id, channel_id, id, @now, @now FROM contacts WHERE channel_id = @channelId AND external_id LIKE 'pre%'`,
    ).run({ channelId, now });
  })();
  const conv = db
    .prepare(
      "SELECT min(c.id) AS first, min(k.id) AS contact FROM conversations c JOIN contacts k ON k.id = c.contact_id WHERE k.external_id LIKE 'pre%'",
    )
    .get();
  const chunk = 500_000;
  for (let from = 0; from < messages; from += chunk) {
    const to = Math.min(messages, from + chunk);
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM n WHERE i < @to - 1)
         INSERT INTO messages (company_id, channel_id, conversation_id, contact_id, external_id, income, status, text, created_at, external_created_at)
         SELECT @companyId, @channelId, @firstConv + (i % @conversations), @firstContact + (i % @conversations), 'pre:' || i, 1, 'created',
                'A prefilled message number ' || i, @now, @now - (@messages - i) * 1000 FROM n`,
      ).run({
        from,
        to,
        companyId,
        channelId,
        firstConv: conv.first,
        firstContact: conv.contact,
        conversations,
        messages,
        now,
      });
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM n WHERE i < @to - 1)
         INSERT INTO callback_receipts (channel_id, key, created_at) SELECT @channelId, 'update:pre' || i, @now FROM n`,
      ).run({ from, to, channelId, now });
    })();
  }
  db.prepare(
    `UPDATE conversations SET last_message_id = (SELECT max(id) FROM messages m WHERE m.conversation_id = conversations.id)
     WHERE channel_id = ? AND contact_id IN (SELECT id FROM contacts WHERE external_id LIKE 'pre%')`,
  ).run(channelId);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  const counts = db
    .prepare(
      'SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM conversations) AS conversations',
    )
    .get();
  db.close();
  // synchronous = OFF left the file's pages to the kernel's writeback: flushed here, not by the
  // daemon's first checkpoint (its fsync took 0.6 s at the start of the measured run).
  const fd = fs.openSync(dbFile, 'r+');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return counts;
}

/** `count` failed deliveries of message.create events to the endpoint, as the schedule leaves them. */
export function prefillFailedDeliveries(dbFile, { companyId, endpointId, count, from = 0 }) {
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const created = new Date(now).toISOString();
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT @from + 1 UNION ALL SELECT i + 1 FROM n WHERE i < @from + @count)
     INSERT INTO webhook_deliveries (id, seq, event_id, event_name, company_id, endpoint_id, event, status, attempt_count, last_status_code, last_error, created_at, updated_at)
     SELECT 'dlv_bench' || i, (SELECT coalesce(max(seq), 0) FROM webhook_deliveries) + i - @from, 'evt_bench' || i, 'message.create', @companyId, @endpointId,
            json_object('id', 'evt_bench' || i, 'company_id', @companyId, 'name', 'message.create', 'created_at', @created,
              'body', json_object('id', 'evt_bench' || i, 'event', 'create', 'type', 'message', 'created_at', @created,
                'object', json_object('id', i, 'message', 'r:' || i, 'income', json('true')))),
            'failed', 8, 500, 'the receiver answered 500', @now, @now
     FROM n`,
  ).run({ count, from, companyId, endpointId, created, now });
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
