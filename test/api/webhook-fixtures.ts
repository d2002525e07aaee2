// What the test/api/webhooks-*.test.ts files share (docs/design.md sections 7 and 9, company webhook
// endpoints): the gateway a file starts, the paths, the answer's shape, the secrets a file was shown,
// and the helpers that create, list and read back the endpoints of that gateway.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { webhookListResponse, webhookResponse } from '../../schemas/v2/webhooks.js';
import type { WebhookEndpointRow } from '../../src/store/resources/webhooks.js';
import { expectErrorShape, startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';

export type Body = Record<string, unknown>;

/**
 * Every secret answered to the test file that imports this module (vitest gives each file its own
 * modules): none may reach a list, a show or the log.
 */
export const shownSecrets: string[] = [];

const validateWebhook = compileSchema(webhookResponse);
const validateList = compileSchema(webhookListResponse);

export const hooksPath = (companyId: number | string) => `/api/p2/companies/${companyId}/webhooks`;
export const hookPath = (companyId: number | string, id: number | string) => `${hooksPath(companyId)}/${id}`;

export interface Hook {
  id: number;
  company_id: number;
  source: 'company' | 'api';
  url: string;
  event_types: string[] | null;
  active: boolean;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

export function expectHook(res: TestResponse, status = 200): Hook {
  expect(res.status, res.text).toBe(status);
  expect(validateWebhook(res.body), JSON.stringify(validateWebhook.errors)).toBe(true);
  const hook = res.body.webhook as Hook;
  if (hook.secret !== undefined) shownSecrets.push(hook.secret);
  return hook;
}

/** A secret works with the Standard Webhooks library the receivers use. */
export function expectUsableSecret(secret: string): void {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
  const payload = JSON.stringify({ hello: 'world' });
  const signature = new Webhook(secret).sign('evt_1', new Date(), payload);
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': signature,
  };
  expect(new Webhook(secret).verify(payload, headers)).toEqual({ hello: 'world' });
}

/**
 * The helpers that call or read a gateway: `gateway` answers the one the test file's beforeAll
 * started, so a file takes them once, at its top.
 */
export function webhookHelpers(gateway: () => TestGateway) {
  const db = () => gateway().gateway.store.db;

  async function createHook(companyId: number, body: Body = {}): Promise<Hook> {
    return expectHook(
      await gateway().request('POST', hooksPath(companyId), {
        json: { url: `https://example.com/hooks/${randomUUID()}`, ...body },
      }),
      201,
    );
  }

  async function list(companyId: number, token?: string): Promise<Hook[]> {
    const res = await gateway().request('GET', hooksPath(companyId), token === undefined ? {} : { token });
    expect(res.status, res.text).toBe(200);
    expect(validateList(res.body), JSON.stringify(validateList.errors)).toBe(true);
    for (const hook of res.body.webhooks as Hook[]) expect(hook).not.toHaveProperty('secret');
    return res.body.webhooks as Hook[];
  }

  function rows(companyId: number): WebhookEndpointRow[] {
    return gateway().gateway.store.webhooks.list(companyId);
  }

  function row(id: number): WebhookEndpointRow | undefined {
    return db().prepare('SELECT * FROM webhook_endpoints WHERE id = ?').get(id) as WebhookEndpointRow | undefined;
  }

  function dump(): string {
    return JSON.stringify(db().prepare('SELECT * FROM webhook_endpoints ORDER BY id').all());
  }

  /** A request that must be refused and must change no endpoint. */
  async function refused(send: () => Promise<TestResponse>, status: number, code: string): Promise<TestResponse> {
    const before = dump();
    const res = await send();
    expectErrorShape(res, status, code);
    expect(dump()).toBe(before);
    return res;
  }

  /** The current secret of every endpoint in the store, the ones never shown included. */
  function storedSecrets(): string[] {
    return (db().prepare('SELECT secret FROM webhook_endpoints').all() as { secret: string }[]).map((r) => r.secret);
  }

  /** The list of every company with an endpoint, and the show of each of its endpoints, as answered. */
  async function endpointAnswers(): Promise<string[]> {
    const companies = db().prepare('SELECT DISTINCT company_id FROM webhook_endpoints').all() as {
      company_id: number;
    }[];
    const texts: string[] = [];
    for (const { company_id } of companies) {
      const res = await gateway().request('GET', hooksPath(company_id));
      if (res.status === 200) texts.push(res.text);
      for (const hook of (res.body?.webhooks ?? []) as Hook[])
        texts.push((await gateway().request('GET', hookPath(company_id, hook.id))).text);
    }
    return texts;
  }

  /** The secrets, shown or stored, that a list, a show or the log holds. */
  async function leakedSecrets(): Promise<string[]> {
    const texts = [...(await endpointAnswers()), gateway().logText()];
    return [...shownSecrets, ...storedSecrets()].filter((s) => texts.some((text) => text.includes(s)));
  }

  return { createHook, list, rows, row, refused, storedSecrets, endpointAnswers, leakedSecrets };
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface WebhooksGateway {
  gw: TestGateway;
  close: () => Promise<void>;
}

/**
 * A file's beforeAll: a gateway on a temp SQLite file. With `checkSecretsOnClose`, `close` first
 * checks that no secret shown or stored, the v1 mirrors' included, reached a list, a show or the log.
 */
export async function startWebhooksGateway({ checkSecretsOnClose = false } = {}): Promise<WebhooksGateway> {
  const gw = await startTestGateway();
  const { leakedSecrets } = webhookHelpers(() => gw);
  const close = async () => {
    try {
      if (checkSecretsOnClose) expect(await leakedSecrets()).toEqual([]);
    } finally {
      await gw.close();
    }
  };
  return { gw, close };
}
