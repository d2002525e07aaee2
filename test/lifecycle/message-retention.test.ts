// Retention of messages: the company setting (GET/PUT /api/p2/companies/<id>/settings), the
// operator's default, and the pass that deletes expired messages with their files.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/streams/stream.js';
import { OutboxJanitor } from '../../src/outbox/janitor.js';
import { MessageRetention } from '../../src/workers/message-retention.js';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  TO_RECEIVERS,
  type TestGateway,
} from '../helpers/gateway.js';
import { emitEvent, insertEndpoint } from '../helpers/pipeline.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { seedCompany, seedConversation } from '../helpers/seed.js';
import { eventually, firstJanitorPass, memoryLogger } from '../helpers/wait.js';
import { attachmentFiles, storeMentions } from './store-scan.js';

const DAY = 86_400_000;
let gw: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  gw = await startTestGateway({ ...TO_RECEIVERS, GATEWAY_MESSAGE_RETENTION: '30d' });
  receiver = await startReceiver(() => []);
});
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
});

/** A message of the conversation created `ageDays` ago, with a file on disk when `file` is given. */
function oldMessage(
  seeded: { companyId: number; channelId: number; conversationId: number; contactId: number },
  ageDays: number,
  text: string,
  file?: string,
) {
  const store = gw.store;
  return store.transaction(() => {
    const created = Date.now() - ageDays * DAY;
    const message = store.messages.insert(
      {
        companyId: seeded.companyId,
        channelId: seeded.channelId,
        conversationId: seeded.conversationId,
        contactId: seeded.contactId,
        externalId: null,
        repliedToId: null,
        income: true,
        status: 'created',
        text,
        details: null,
        sendToCrm: true,
        externalCreatedAt: created,
      },
      created,
    );
    store.conversations.changeInTransaction(store.conversations.find(seeded.companyId, seeded.conversationId)!, {
      last_message_id: message.id,
    });
    if (file !== undefined) {
      const folder = path.join(gw.dataDir, 'attachments');
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, file), text);
      const row = store.attachments.insert(
        {
          companyId: seeded.companyId,
          storageKey: file,
          fileName: 'a.txt',
          mimeType: 'text/plain',
          size: text.length,
          width: null,
          height: null,
          pushToTalk: false,
        },
        created,
      );
      store.attachments.attachToMessage(row.id, message.id);
    }
    return message;
  });
}

function retention(clock: Clock = systemClock): MessageRetention {
  return new MessageRetention({
    store: gw.store,
    clock,
    logger: memoryLogger().logger,
    defaultRetentionMs: 30 * DAY,
    folder: path.join(gw.dataDir, 'attachments'),
    batch: 2,
  });
}

describe('GET, PUT /api/p2/companies/<id>/settings', () => {
  it("answers the company's retention and the gateway's default, and sets it", async () => {
    const { companyId } = await seedCompany(gw);
    const base = `/api/p2/companies/${companyId}/settings`;
    const initial = await gw.request('GET', base);
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({
      settings: { company_id: companyId, message_retention_days: null, default_message_retention_days: 30 },
    });
    const set = await gw.request('PUT', base, { json: { message_retention_days: 7 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      settings: { company_id: companyId, message_retention_days: 7, default_message_retention_days: 30 },
    });
    expect((await gw.request('GET', base)).body.settings.message_retention_days).toBe(7);
    const cleared = await gw.request('PUT', base, { json: { company_id: companyId, message_retention_days: null } });
    expect(cleared.body.settings.message_retention_days).toBeNull();
  });

  it('refuses bad values in the error shape and changes nothing', async () => {
    const { companyId } = await seedCompany(gw);
    const base = `/api/p2/companies/${companyId}/settings`;
    for (const value of [0, 3651, 1.5, '7', true]) {
      const res = await gw.request('PUT', base, { json: { message_retention_days: value } });
      expectErrorShape(res, 422, 'validation_failed');
      expect(failingFields(res)).toEqual(['message_retention_days']);
    }
    expect(failingFields(await gw.request('PUT', base, { json: {} }))).toEqual(['message_retention_days']);
    expect(
      failingFields(
        await gw.request('PUT', base, { json: { company_id: companyId + 1000, message_retention_days: 3 } }),
      ),
    ).toEqual(['company_id']);
    expectErrorShape(
      await gw.request('PUT', '/api/p2/companies/987654321/settings', { json: { message_retention_days: 3 } }),
      404,
      'not_found',
    );
    expectErrorShape(await gw.request('GET', base, { token: null }), 401, 'unauthorized');
    expect((await gw.request('GET', base)).body.settings.message_retention_days).toBeNull();
  });
});

describe('the retention pass', () => {
  it("deletes the messages older than their company's period with their files, keeps the rest and the conversation", async () => {
    const own = await seedCompany(gw, gw.token, 'Short Retention');
    const byDefault = await seedCompany(gw, gw.token, 'Default Retention');
    await gw.request('PUT', `/api/p2/companies/${own.companyId}/settings`, { json: { message_retention_days: 7 } });
    const a = seedConversation(gw, own, { sender: '700000001' });
    const b = seedConversation(gw, byDefault, { sender: '700000002' });
    const key = (n: number) => `${'k'.repeat(42)}${n}`;
    oldMessage(a, 10, 'expired text one', key(1));
    oldMessage(a, 9, 'expired text two');
    oldMessage(a, 8, 'expired text three', key(2));
    const keptA = oldMessage(a, 2, 'kept text a', key(3));
    const keptB = oldMessage(b, 10, 'kept text b', key(4));
    oldMessage(b, 31, 'expired text default', key(5));

    expect(await retention().pass()).toEqual({ messages: 4, deliveries: 0 });

    expect(storeMentions(gw.store, ['expired text'])).toEqual([]);
    expect(attachmentFiles(gw.dataDir)).toEqual([key(3), key(4)]);
    expect(gw.store.db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual({ n: 2 });
    const conversation = await gw.request(
      'GET',
      `/api/p2/conversations/${a.conversationId}?company_id=${own.companyId}`,
    );
    expect(conversation.status).toBe(200);
    expect(conversation.body.conversation.last_message_id).toBe(keptA.id);
    const messages = await gw.request(
      'GET',
      `/api/p2/conversations/${a.conversationId}/messages?company_id=${own.companyId}`,
    );
    expect(messages.body.messages.map((m: { id: number }) => m.id)).toEqual([keptA.id]);
    const other = await gw.request(
      'GET',
      `/api/p2/conversations/${b.conversationId}/messages?company_id=${byDefault.companyId}`,
    );
    expect(other.body.messages.map((m: { id: number }) => m.id)).toEqual([keptB.id]);
    expect(await retention().pass()).toEqual({ messages: 0, deliveries: 0 });
  });

  it('empties a conversation whose messages all expired, leaving it without a last message', async () => {
    const company = await seedCompany(gw, gw.token, 'All Expired');
    const seeded = seedConversation(gw, company, { sender: '700000003' });
    oldMessage(seeded, 40, 'expired all');
    expect(await retention().pass()).toEqual({ messages: 1, deliveries: 0 });
    const conversation = await gw.request(
      'GET',
      `/api/p2/conversations/${seeded.conversationId}?company_id=${company.companyId}`,
    );
    expect(conversation.status).toBe(200);
    expect(conversation.body.conversation.last_message_id).toBeNull();
  });

  it("deletes the company's ended deliveries as old as its expired messages: no payload keeps them", async () => {
    const short = await seedCompany(gw, gw.token, 'Short Payloads');
    const long = await seedCompany(gw, gw.token, 'Long Payloads');
    await gw.request('PUT', `/api/p2/companies/${short.companyId}/settings`, { json: { message_retention_days: 7 } });
    for (const { companyId } of [short, long]) insertEndpoint(gw.store, companyId, receiver.url);
    emitEvent(gw.store, short.companyId, 'message.create', { id: 1, text: 'expired payload text' });
    emitEvent(gw.store, long.companyId, 'message.create', { id: 2, text: 'kept payload text' });
    const delivered = async (companyId: number) =>
      (await gw.admin('GET', `/admin/deliveries?company_id=${companyId}&status=delivered`)).body.deliveries.length;
    await eventually(
      'both delivered',
      async () => (await delivered(short.companyId)) + (await delivered(long.companyId)) === 2,
    );
    expect(storeMentions(gw.store, ['expired payload text']).length).toBeGreaterThan(0);

    const eightDaysOn: Clock = { now: () => Date.now() + 8 * DAY };
    // Messages of the earlier tests expire too by then; this company had its one delivery.
    expect((await retention(eightDaysOn).pass()).deliveries).toBe(1);
    // The published outbox row goes after a day by the outbox janitor, which the period (a day at least) outlasts.
    await firstJanitorPass(
      (logger, signal) => new OutboxJanitor({ store: gw.store, clock: eightDaysOn, logger }).run(signal),
      'published outbox rows',
    );

    expect(storeMentions(gw.store, ['expired payload text'])).toEqual([]);
    expect(await delivered(short.companyId)).toBe(0);
    expect(await delivered(long.companyId)).toBe(1);
    expect(storeMentions(gw.store, ['kept payload text'])).not.toEqual([]);
  });
});
