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
