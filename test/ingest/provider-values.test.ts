// What the gateway keeps of the values in provider callbacks: times within bounds (422 otherwise, never
// 500), and in a message's details only the provider fields it knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, expectErrorShape, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import {
  cloudBody,
  createCallbackChannels,
  postBot,
  postCloud,
  rowCounts,
  seedOutgoing,
} from '../helpers/callbacks.js';

let gw: TestGateway;
let companyId: number;
let botChannel: number;
let botSecret: string;
let cloudChannel: number;
let appSecret: string;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN });
  ({ companyId, botChannel, botSecret, cloudChannel, appSecret } = await createCallbackChannels(
    gw,
    'Provider Values Co',
  ));
});
afterAll(() => gw.close());

const store = () => gw.gateway.store;
let seq = 0;
const nextId = () => `review-${++seq}`;

function botBody(message: Record<string, unknown>, key = 'message'): string {
  return JSON.stringify({
    update_id: 900000 + ++seq,
    [key]: { message_id: seq, chat: { id: 555, type: 'private', first_name: 'Ivo' }, date: 1749416383, ...message },
  });
}
async function detailsOf(externalId: string): Promise<unknown> {
  const row = store().db.prepare('SELECT details FROM messages WHERE external_id = ?').get(externalId) as {
    details: string | null;
  };
  return row.details === null ? null : JSON.parse(row.details);
}

describe('provider times are bounded (422, never 500)', () => {
  it('bot-style date and edit_date', async () => {
    const counts = rowCounts(store());
    const date = await postBot(gw, botChannel, botBody({ date: 9000000000000, text: 'far future' }), botSecret);
    expect(expectErrorShape(date, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual(['/message/date']);
    const edit = await postBot(
      gw,
      botChannel,
      botBody({ edit_date: 9000000000000, text: 'edited' }, 'edited_message'),
      botSecret,
    );
    expect(expectErrorShape(edit, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/edited_message/edit_date',
    ]);
    // The bound itself is accepted.
    expect(
      (await postBot(gw, botChannel, botBody({ date: 99_999_999_999, text: 'at the bound' }), botSecret)).status,
    ).toBe(200);
    expect(rowCounts(store()).messages).toBe(counts.messages + 1);
  });

  it('cloud-style message and status timestamps', async () => {
    const counts = rowCounts(store());
    const message = await postCloud(
      gw,
      cloudChannel,
      cloudBody([
        { id: nextId(), from: '4915112345678', timestamp: '999999999999', type: 'text', text: { body: 'hi' } },
      ]),
      appSecret,
    );
    expect(expectErrorShape(message, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/entry/0/changes/0/value/messages/0/timestamp',
    ]);
    const status = await postCloud(
      gw,
      cloudChannel,
      cloudBody([], [{ id: 'x', status: 'read', timestamp: '999999999999' }]),
      appSecret,
    );
    expect(expectErrorShape(status, 422, 'validation_failed').map((e) => e.source?.pointer)).toEqual([
      '/entry/0/changes/0/value/statuses/0/timestamp',
    ]);
    expect(rowCounts(store())).toEqual(counts);
  });
});

describe('details keep only the known provider fields', () => {
  it('cloud-style location and interactive reply', async () => {
    const location = nextId();
    const reply = nextId();
    const body = cloudBody([
      {
        id: location,
        from: '4915112345678',
        timestamp: '1749416450',
        type: 'location',
        location: {
          latitude: 1.5,
          longitude: 2.5,
          name: 'Shop',
          address: 'Main St 1',
          url: 'https://x.test',
          injected: { deep: 'x'.repeat(100) },
        },
      },
      {
        id: reply,
        from: '4915112345678',
        timestamp: '1749416451',
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: { id: 'opt-1', title: 'Blue', description: 'the blue one', injected: [1, 2, 3] },
        },
      },
    ]);
    expect((await postCloud(gw, cloudChannel, body, appSecret)).status).toBe(200);
    expect(await detailsOf(location)).toEqual({
      location: { latitude: 1.5, longitude: 2.5, name: 'Shop', address: 'Main St 1' },
    });
    expect(await detailsOf(reply)).toEqual({ interactive: { type: 'list_reply', id: 'opt-1', title: 'Blue' } });
  });

  it('cloud-style status errors', async () => {
    const outgoing = `bmid.REVIEW-FAIL-${nextId()}`;
    const text = nextId();
    expect(
      (
        await postCloud(
          gw,
          cloudChannel,
          cloudBody([{ id: text, from: '4915112345678', timestamp: '1749416450', type: 'text', text: { body: 'x' } }]),
          appSecret,
        )
      ).status,
    ).toBe(200);
    const conversationId = (
      store().db.prepare('SELECT conversation_id FROM messages WHERE external_id = ?').get(text) as {
        conversation_id: number;
      }
    ).conversation_id;
    seedOutgoing(store(), conversationId, companyId, outgoing);
    const errors = [
      {
        code: 131047,
        title: 'Re-engagement',
        message: 'Too late',
        error_data: { details: 'More than 24 hours', injected: 'x' },
        href: 'https://x.test',
        injected: { a: 1 },
      },
      { title: 'Only a title' },
    ];
    expect(
      (
        await postCloud(
          gw,
          cloudChannel,
          cloudBody([], [{ id: outgoing, status: 'failed', timestamp: '1749416503', errors }]),
          appSecret,
        )
      ).status,
    ).toBe(200);
    expect(await detailsOf(outgoing)).toEqual({
      errors: [
        { code: 131047, title: 'Re-engagement', message: 'Too late', error_data: { details: 'More than 24 hours' } },
        { title: 'Only a title' },
      ],
    });
  });

  it('bot-style location', async () => {
    expect(
      (
        await postBot(
          gw,
          botChannel,
          botBody({ location: { latitude: 3.5, longitude: 4.5, horizontal_accuracy: 10, live_period: 60, name: 7 } }),
          botSecret,
        )
      ).status,
    ).toBe(200);
    expect(await detailsOf(`555:${seq}`)).toEqual({ location: { latitude: 3.5, longitude: 4.5 } });
  });
});
