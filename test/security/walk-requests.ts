// How the cross-account walk sends a built request, and what it accepts as a refusal.
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { expectErrorShape, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import type { AccountResources } from './walk-accounts.js';
import type { BuiltRequest, WalkOperation } from './walk-operations.js';

/** Headers a request of the walk carries: the caller's API token, or a cookie and CSRF token. */
export type Credentials = { token: string | null; headers?: Record<string, string> };

/**
 * Sends `built` as `op` takes it: the input as a JSON body (GET and DELETE read a JSON body merged
 * over the query, as the contract's samples send them), a small file for an upload, and for a
 * provider callback a body signed with the caller's own channel secret.
 */
export async function sendBuilt(
  gw: TestGateway,
  op: WalkOperation,
  built: BuiltRequest,
  credentials: Credentials,
  caller: AccountResources,
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...credentials.headers };
  if (credentials.token !== null) headers['x-private-api-token'] = credentials.token;
  if (op.multipartOnly) {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('walk')], { type: 'text/plain' }), 'walk.txt');
    const res = await fetch(`${gw.baseUrl}${built.path}`, { method: op.method, body: form, headers });
    const text = await res.text();
    return { status: res.status, headers: Object.fromEntries(res.headers), text, body: parseJson(text) };
  }
  if (op.auth === 'none' && op.method === 'POST' && built.path.startsWith('/callbacks/')) {
    // The caller's connector would sign so: another account's channel must refuse it.
    const body = JSON.stringify({ type: 'state', state: 'disabled' });
    const id = `msg_walk_${Date.now()}`;
    const signature = new Webhook(caller.connectorSecret).sign(id, new Date(), body);
    const now = String(Math.floor(Date.now() / 1000));
    Object.assign(headers, { 'webhook-id': id, 'webhook-timestamp': now, 'webhook-signature': signature });
    return gw.request(op.method, built.path, {
      token: null,
      body,
      headers: { ...headers, 'content-type': 'application/json' },
    });
  }
  if (op.auth === 'none' && built.input !== undefined) {
    // Public GETs (callback handshakes, the OAuth redirect) read the query; the caller brings its own secrets.
    const query = new URLSearchParams(
      Object.entries(built.input).map(([k, v]): [string, string] => [
        k,
        k === 'hub.verify_token' ? caller.verifyToken : String(v),
      ]),
    );
    return gw.request(op.method, `${built.path}?${query.toString()}`, { token: null, headers });
  }
  return gw.request(op.method, built.path, { token: null, json: built.input, headers });
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What of `account` an answer to another account must never show. */
export function secretsOf(account: AccountResources): string[] {
  return [
    account.marker,
    account.storageKey,
    account.delivery,
    account.replayTask,
    account.template,
    account.portal.token,
  ];
}

/** Asserts the answer shows nothing of `account` beyond what the request itself sent (a 404 may name the id it was given). */
export function expectNothingOf(res: TestResponse, account: AccountResources, what: string, sent = ''): void {
  for (const secret of secretsOf(account).filter((s) => !sent.includes(s))) {
    expect(res.text, `${what} shows ${secret}`).not.toContain(secret);
  }
}

const CODES: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  422: 'validation_failed',
};

/** Asserts a refusal with one of `statuses`, in the contract's error shape with the status's code. */
export function expectRefusal(res: TestResponse, statuses: number[], what: string): void {
  expect(statuses, `${what} answered ${res.status}: ${res.text}`).toContain(res.status);
  expectErrorShape(res, res.status, CODES[res.status]!);
}
