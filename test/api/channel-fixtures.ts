// What the test/api/channels-*.test.ts files share (contract section 4 "v1 Channels"): the gateway a
// file starts, the paths, the providers created by token, the distinctive secrets a file sends, and
// the helpers that create, list and read back the channels of that gateway.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  expectErrorShape,
  failingFields,
  startTestGateway,
  type TestGateway,
  type TestResponse,
} from '../helpers/gateway.js';

export type Body = Record<string, unknown>;

export const DAY = 24 * 60 * 60 * 1000;
export const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
export const unixAgo = (ms: number) => Math.floor((Date.now() - ms) / 1000);

/**
 * Every distinctive secret sent by the test file that imports this module (vitest gives each file
 * its own modules): none may ever reach the log.
 */
export const allSecrets: string[] = [];

export function secret(label = 'secret'): string {
  const value = `S3CRET-${label}-${randomUUID()}`;
  allSecrets.push(value);
  return value;
}

/** The secrets of `allSecrets` that `log` holds. */
const secretsIn = (log: string): string[] => allSecrets.filter((s) => log.includes(s));

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface ChannelsGateway {
  gw: TestGateway;
  close: () => Promise<void>;
}

/**
 * A file's beforeAll: a gateway on a temp SQLite file. With `checkSecretsOnClose`, `close` first
 * checks that no secret the file sent reached the log.
 */
export async function startChannelsGateway({ checkSecretsOnClose = false } = {}): Promise<ChannelsGateway> {
  const gw = await startTestGateway();
  const close = async () => {
    try {
      if (checkSecretsOnClose) expect(secretsIn(gw.logText())).toEqual([]);
    } finally {
      await gw.close();
    }
  };
  return { gw, close };
}

export const channelsPath = (companyId: number | string) => `/p1/companies/${companyId}/channels`;
export const channelPath = (companyId: number | string, id: number | string) => `${channelsPath(companyId)}/${id}`;

/** The providers created and updated with a token alone. */
export const TOKEN_PROVIDERS = ['social_b', 'social_a', 'social_a_direct', 'chat_b', 'chat_c'] as const;

export function expectCreated(res: TestResponse): void {
  expect(res.status, res.text).toBe(201);
  expect(res.body).toEqual({ status: 'created', data: { external_id: expect.any(Number) } });
  expect(Number.isInteger(res.body.data.external_id)).toBe(true);
}

export function expectNotFound(res: TestResponse): void {
  expectErrorShape(res, 404, 'not_found');
  expect(res.body.errors).toHaveLength(1);
}

export interface StoredChannel {
  id: number;
  provider: string;
  state: string;
  settings: string;
  credentials: string;
  deleted_at: number | null;
}

/**
 * The helpers that call or read a gateway: `gateway` answers the one the test file's beforeAll
 * started, so a file takes them once, at its top.
 */
export function channelHelpers(gateway: () => TestGateway) {
  const db = () => gateway().gateway.store.db;

  function createChannel(companyId: number, body: Body, token?: string): Promise<TestResponse> {
    return gateway().request('POST', channelsPath(companyId), {
      json: body,
      ...(token === undefined ? {} : { token }),
    });
  }

  /** Creates a channel that must be accepted and answers its id. */
  async function createdId(companyId: number, body: Body): Promise<number> {
    const res = await createChannel(companyId, body);
    expectCreated(res);
    return res.body.data.external_id as number;
  }

  async function list(companyId: number, query = ''): Promise<TestResponse> {
    return gateway().request('GET', `${channelsPath(companyId)}${query}`);
  }

  async function listItems(companyId: number): Promise<{ external_id: number; provider: string }[]> {
    const res = await list(companyId, '?per=100');
    expect(res.status, res.text).toBe(200);
    return res.body.data.channels;
  }

  function storedChannels(companyId: number): StoredChannel[] {
    return db()
      .prepare(
        'SELECT id, provider, state, settings, credentials, deleted_at FROM channels WHERE company_id = ? ORDER BY id',
      )
      .all(companyId) as StoredChannel[];
  }

  function storedChannel(id: number): StoredChannel {
    return db()
      .prepare('SELECT id, provider, state, settings, credentials, deleted_at FROM channels WHERE id = ?')
      .get(id) as StoredChannel;
  }

  /** A 422 naming exactly these fields (one entry per field), with nothing stored for the company. */
  async function expectRejected(companyId: number, res: TestResponse, fields: string[]): Promise<void> {
    expect(res.status, res.text).toBe(422);
    expect(failingFields(res).sort()).toEqual([...fields].sort());
    expect(storedChannels(companyId)).toEqual([]);
    expect(await listItems(companyId)).toEqual([]);
  }

  return { createChannel, createdId, list, listItems, storedChannels, storedChannel, expectRejected };
}
