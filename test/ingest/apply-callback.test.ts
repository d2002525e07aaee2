// applyCallback, the one transaction a verified callback runs in: all or nothing, and no reads it does
// not need.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyCallback } from '../../src/domain/incoming.js';
import { createPresenters } from '../../src/presenters/presenters.js';
import { publicUrls } from '../../src/presenters/public-urls.js';
import type { IngestBatch } from '../../src/domain/provider-facts.js';
import { emittedEvents } from '../helpers/events.js';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { checkedEvents, createCallbackChannels, postBot, rowCounts } from '../helpers/callbacks.js';

let gw: TestGateway;
let botChannel: number;
let botSecret: string;
let connectorChannel: number;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  ({ botChannel, botSecret, connectorChannel } = await createCallbackChannels(gw, 'Apply Co'));
});
afterAll(() => gw.close());

afterEach(() => vi.restoreAllMocks());

const store = () => gw.gateway.store;
let seq = 0;
const nextId = () => `review-${++seq}`;

describe('applyCallback', () => {
  const textBatch = (externalId: string): IngestBatch => ({
    receipt: null,
    items: [
      {
        kind: 'message',
        externalId,
        chat: {
          externalId: `chat-${externalId}`,
          externalPublicId: `chat-${externalId}`,
          name: 'Someone',
          phone: null,
          isGroup: false,
        },
        income: true,
        sentAt: 1749416383000,
        text: 'hi',
        repliedToId: null,
        attachments: [],
        details: null,
      },
    ],
  });

  it('throws and rolls everything back when the message insert finds the id taken', async () => {
    const counts = rowCounts(store());
    vi.spyOn(store().messages, 'insertOnce').mockReturnValue(undefined);
    const body = JSON.stringify({
      update_id: 990001,
      message: { message_id: 1, chat: { id: 777001, type: 'private', first_name: 'New' }, date: 1749416383, text: 'x' },
    });
    expectErrorShape(await postBot(gw, botChannel, body, botSecret), 500, 'internal_error');
    // The receipt, contact and conversation written before the insert are gone too.
    expect(rowCounts(store())).toEqual(counts);
  });

  const groupBatch = (externalId: string, member: string): IngestBatch => ({
    receipt: null,
    items: [
      {
        kind: 'message',
        externalId,
        chat: { externalId: 'group-apply', externalPublicId: 'group-apply', name: 'Team', phone: null, isGroup: true },
        sender: { externalId: member, externalPublicId: member, name: member, phone: null },
        income: true,
        sentAt: 1749416383000,
        text: 'hi all',
        repliedToId: null,
        attachments: [],
        details: null,
      },
    ],
  });
  const participantCount = () =>
    (store().db.prepare('SELECT count(*) AS n FROM conversation_participants').get() as { n: number }).n;

  it('a group message: the author, the participant, the conversation and every event commit together or not at all', () => {
    const presenters = createPresenters(publicUrls(gw.baseUrl));
    const counts = rowCounts(store());
    const participants = participantCount();
    const append = store().outbox.append.bind(store().outbox);
    vi.spyOn(store().outbox, 'append').mockImplementation((row, ...rest) => {
      if ((row.payload as { name?: string }).name === 'message.create') throw new Error('the outbox is full');
      return append(row, ...rest);
    });
    expect(() =>
      applyCallback(store(), { id: connectorChannel, api: 'v2' }, groupBatch(nextId(), 'member-1'), presenters),
    ).toThrow('the outbox is full');
    expect(rowCounts(store())).toEqual(counts);
    expect(participantCount()).toBe(participants);

    vi.restoreAllMocks();
    const start = emittedEvents(store()).length;
    expect(
      applyCallback(store(), { id: connectorChannel, api: 'v2' }, groupBatch(nextId(), 'member-1'), presenters),
    ).toEqual({
      duplicate: false,
      messages: 1,
      events: 3,
    });
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual([
      'conversation.create',
      'group_conversation_contact.new',
      'message.create',
    ]);
    expect(rowCounts(store())).toMatchObject({
      contacts: counts.contacts + 2,
      conversations: counts.conversations + 1,
      messages: counts.messages + 1,
    });
    expect(participantCount()).toBe(participants + 1);
  });

  it('counts the events it records without reading the outbox lag', () => {
    const lag = vi.spyOn(store().outbox, 'lag');
    const start = emittedEvents(store()).length;
    const outcome = applyCallback(
      store(),
      { id: botChannel, api: 'v2' },
      textBatch(nextId()),
      createPresenters(publicUrls(gw.baseUrl)),
    );
    expect(outcome).toEqual({ duplicate: false, messages: 1, events: 2 });
    expect(checkedEvents(store(), start)).toHaveLength(2);
    expect(lag).not.toHaveBeenCalled();
  });

  it('takes the channel api from its caller instead of reading channel_callbacks again', () => {
    const find = vi.spyOn(store().callbacks, 'find');
    const start = emittedEvents(store()).length;
    // The connector channel was created through v2; told v1, the v1 payload follows the auth event.
    const outcome = applyCallback(
      store(),
      { id: connectorChannel, api: 'v1' },
      { receipt: null, items: [{ kind: 'code', code: '123-456' }] },
      createPresenters(publicUrls(gw.baseUrl)),
    );
    expect(outcome).toEqual({ duplicate: false, messages: 0, events: 2 });
    expect(checkedEvents(store(), start).map((e) => e.name)).toEqual(['auth.update', 'channel.code']);
    expect(find).not.toHaveBeenCalled();
  });
});
