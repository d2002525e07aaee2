// The client's address behind the front: a core trusts one proxy more than the front (as `gateway
// cluster` and the manifests set it), so the console's failed-login limit on the core counts the
// client's address, which the front appends to X-Forwarded-For, never the front's own. Here the
// front sits behind one proxy of its own (GATEWAY_TRUST_PROXY=1), the core trusts two.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { startFront } from '../../src/roles/front-role.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ADMIN = 'admin-token-of-the-client-address-tests';
let core: TestGateway;
let front: { port: number; close(): Promise<void> };

/** A console login through the front, as the proxy before it would send it for `client`. */
async function login(client: string, token: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${front.port}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
    body: JSON.stringify({ token }),
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  core = await startTestGateway({
    GATEWAY_SHARD: '0',
    GATEWAY_SHARD_SLOTS: '64',
    GATEWAY_ADMIN_TOKEN: ADMIN,
    GATEWAY_TRUST_PROXY: '2',
    GATEWAY_ADMIN_AUTH_FREE_FAILURES: '1',
  });
  const config = loadConfig({
    GATEWAY_PORT: '0',
    GATEWAY_SHARD_SLOTS: '64',
    GATEWAY_SHARD_URLS: core.baseUrl,
    GATEWAY_ADMIN_TOKEN: ADMIN,
    GATEWAY_TRUST_PROXY: '1',
  });
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  front = await startFront(config, createLogger('info', quiet));
});

afterAll(async () => {
  await front?.close();
  await core?.close();
});

describe('the client address behind the front', () => {
  it('throttles the console login of the guessing client only, not every client of the front', async () => {
    const guesser = '203.0.113.5';
    // The first wrong token is free, the second makes its source wait: from then on it is refused unheard.
    expect((await login(guesser, 'wrong-token-1')).status).toBe(401);
    expect((await login(guesser, 'wrong-token-2')).status).toBe(401);
    const waiting = await login(guesser, ADMIN);
    expect(waiting.status, waiting.text).toBe(429);
    // Another client through the same front is not the guesser: its right token opens a session.
    const other = await login('203.0.113.6', ADMIN);
    expect(other.status, other.text).toBe(201);
  });
});
