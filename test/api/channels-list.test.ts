// Black-box HTTP tests of listing v1 channels (contract section 4 "v1 Channels", "v1 pagination
// parameters"; section 8 limits of per and from) against a real gateway on a temp SQLite file: live
// channels only, both sort directions, walking the pages, and the 422 for out-of-range parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingFields, type TestGateway } from '../helpers/gateway.js';
import { newCompany } from '../helpers/seed.js';
import { channelHelpers, channelPath, startChannelsGateway } from './channel-fixtures.js';

let gw: TestGateway;
let close: () => Promise<void>;
const { createdId, list } = channelHelpers(() => gw);

beforeAll(async () => {
  ({ gw, close } = await startChannelsGateway());
});
afterAll(() => close?.());

describe('GET /p1/companies/:companyId/channels', () => {
  let company: number;
  let ids: number[];
  const providers = ['social_b', 'chat_b', 'chat_c'];

  beforeAll(async () => {
    company = await newCompany(gw);
    ids = [];
    for (const provider of providers) ids.push(await createdId(company, { provider, token: 't' }));
    // A deleted channel is never listed.
    const gone = await createdId(company, { provider: 'social_a', token: 't' });
    expect((await gw.request('DELETE', channelPath(company, gone))).status).toBe(200);
  });

  const item = (i: number) => ({ external_id: ids[i], provider: providers[i] });

  it('answers an empty list for a company without channels', async () => {
    const empty = await newCompany(gw);
    const res = await list(empty);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', data: { channels: [], next_page: '' } });
  });

  it('lists all live channels ascending by id by default, next_page empty on the last page', async () => {
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const res = await list(company);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', data: { channels: [item(0), item(1), item(2)], next_page: '' } });
  });

  it('sort_direction=desc lists newest first', async () => {
    const res = await list(company, '?sort_direction=desc');
    expect(res.body).toEqual({ status: 'ok', data: { channels: [item(2), item(1), item(0)], next_page: '' } });
  });

  it.each([
    ['asc', [0, 1, 2]],
    ['desc', [2, 1, 0]],
  ] as const)('walks with per=1 %s', async (direction, order) => {
    let from: string | undefined;
    const seen: unknown[] = [];
    const tokens: string[] = [];
    for (let page = 0; page < order.length; page += 1) {
      const query = `?per=1&sort_direction=${direction}${from === undefined ? '' : `&from=${encodeURIComponent(from)}`}`;
      const res = await list(company, query);
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('ok');
      expect(res.body.data.channels).toEqual([item(order[page]!)]);
      expect(typeof res.body.data.next_page).toBe('string');
      seen.push(...res.body.data.channels);
      if (page < order.length - 1) {
        expect(res.body.data.next_page).not.toBe('');
        tokens.push(res.body.data.next_page);
      } else {
        expect(res.body.data.next_page).toBe('');
      }
      from = res.body.data.next_page;
    }
    expect(seen).toEqual(order.map(item));
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('walks with per=2 ascending', async () => {
    const first = await list(company, '?per=2');
    expect(first.body.data.channels).toEqual([item(0), item(1)]);
    expect(first.body.data.next_page).not.toBe('');
    const second = await list(company, `?per=2&from=${encodeURIComponent(first.body.data.next_page)}`);
    expect(second.body).toEqual({ status: 'ok', data: { channels: [item(2)], next_page: '' } });
  });

  it('per equal to the row count ends on the first page; per=100 is allowed', async () => {
    expect((await list(company, '?per=3')).body).toEqual({
      status: 'ok',
      data: { channels: [item(0), item(1), item(2)], next_page: '' },
    });
    expect((await list(company, '?per=100')).body.data.channels).toHaveLength(3);
  });

  it.each([
    ['empty from', '?per=1&from='],
    ['garbage from', '?per=1&from=not-a-cursor'],
    ['255-character from', `?per=1&from=${'x'.repeat(255)}`],
  ])('%s returns the first page', async (_name, query) => {
    const res = await list(company, query);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.channels).toEqual([item(0)]);
    expect(res.body.data.next_page).not.toBe('');
  });

  it.each([
    ['per=0', '?per=0', ['per']],
    ['per=101', '?per=101', ['per']],
    ['per=abc', '?per=abc', ['per']],
    ['per=-1', '?per=-1', ['per']],
    ['per=1.5', '?per=1.5', ['per']],
    ['sort_direction=up', '?sort_direction=up', ['sort_direction']],
    ['from longer than 255 characters', `?from=${'x'.repeat(256)}`, ['from']],
    ['per and sort_direction both wrong', '?per=0&sort_direction=sideways', ['per', 'sort_direction']],
  ])('%s → 422', async (_name, query, fields) => {
    const res = await list(company, query);
    expect(failingFields(res).sort()).toEqual([...fields].sort());
  });
});
