// What the test/api/auths-*.test.ts files share (contract section 4 "v2 Auths", section 6 events): the
// gateway a file starts, the paths, the distinctive secrets a file sends, the answer's shape, and the
// helpers that create auths, move them and read back the rows and events of that gateway.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { authResponse } from '../../schemas/v2/auths.js';
import { emittedEvents } from '../helpers/events.js';
import { expectErrorShape, startTestGateway, type TestGateway, type TestResponse } from '../helpers/gateway.js';
import { compileSchema } from '../helpers/schemas.js';

export type Body = Record<string, unknown>;

/**
 * Every distinctive secret sent by the test file that imports this module (vitest gives each file its
 * own modules): none may reach an answer, an event or the log.
 */
export const allSecrets: string[] = [];

export function secret(label = 'secret'): string {
  const value = `S3CRET-${label}-${randomUUID()}`;
  allSecrets.push(value);
  return value;
}

export const authsPath = (companyId: number | string) => `/api/p2/companies/${companyId}/auths`;
export const authPath = (companyId: number | string, id: number | string) => `${authsPath(companyId)}/${id}`;

export interface Auth {
  id: number;
  company_id: number;
  provider: string;
  state: string;
  confirmation: string | null;
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface AuthEvent {
  id: string;
  event: 'create' | 'update' | 'delete';
  type: 'auth';
  created_at: string;
  object: Auth;
}

const validateAuthResponse = compileSchema(authResponse);

export function expectAuthAnswer(res: TestResponse, status = 200): Auth {
  expect(res.status, res.text).toBe(status);
  expect(validateAuthResponse(res.body), JSON.stringify(validateAuthResponse.errors)).toBe(true);
  return res.body.auth as Auth;
}

/**
 * The helpers that call or read a gateway: `gateway` answers the one the test file's beforeAll
 * started, so a file takes them once, at its top.
 */
export function authHelpers(gateway: () => TestGateway) {
  const db = () => gateway().gateway.store.db;

  function create(companyId: number | string, body: Body, token?: string): Promise<TestResponse> {
    return gateway().request('POST', authsPath(companyId), {
      json: body,
      ...(token === undefined ? {} : { token }),
    });
  }

  async function created(companyId: number, body: Body): Promise<Auth> {
    return expectAuthAnswer(await create(companyId, body), 201);
  }

  /** Every auth event in the outbox, oldest first (the bodies companies receive), each validated against its schema. */
  function authEvents(): AuthEvent[] {
    return emittedEvents(gateway().gateway.store)
      .filter((record) => record.body.type === 'auth')
      .map((record) => record.body as unknown as AuthEvent);
  }

  function eventsOf(authId: number): AuthEvent[] {
    return authEvents().filter((e) => e.object.id === authId);
  }

  function outboxCount(): number {
    return (db().prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
  }

  function storedState(id: number): { state: string; deleted_at: number | null } {
    return db().prepare('SELECT state, deleted_at FROM channels WHERE id = ?').get(id) as {
      state: string;
      deleted_at: number | null;
    };
  }

  /** A request that must be refused and must change nothing: no channel, no state, no event. */
  async function refused(send: () => Promise<TestResponse>, status: number, code: string): Promise<TestResponse> {
    const channels = JSON.stringify(db().prepare('SELECT * FROM channels ORDER BY id').all());
    const events = outboxCount();
    const res = await send();
    expectErrorShape(res, status, code);
    expect(JSON.stringify(db().prepare('SELECT * FROM channels ORDER BY id').all())).toBe(channels);
    expect(outboxCount()).toBe(events);
    return res;
  }

  const action = (method: string, companyId: number, id: number, name: string, json?: Body) =>
    gateway().request(method, `${authPath(companyId, id)}/${name}`, json === undefined ? {} : { json });

  /**
   * The secrets of `allSecrets` that reached the log or an event of the outbox: of every store, an
   * invariant of the whole deployment, so that a file otherwise black-box could run against a cluster too.
   */
  function leakedSecrets(): string[] {
    const log = gateway().logText();
    const events = JSON.stringify(
      gateway()
        .everyStore()
        .map((store) => store.db.prepare('SELECT payload FROM outbox').all()),
    );
    return allSecrets.filter((s) => log.includes(s) || events.includes(s));
  }

  return { create, created, authEvents, eventsOf, storedState, refused, action, leakedSecrets };
}

/** What a test file's beforeAll starts, and `close`, its afterAll. */
export interface AuthsGateway {
  gw: TestGateway;
  close: () => Promise<void>;
}

/**
 * A file's beforeAll: a gateway on a temp SQLite file. With `checkSecretsOnClose`, `close` also fails
 * the file if a secret it sent reached the log or an event, read before the gateway closes.
 */
export async function startAuthsGateway({ checkSecretsOnClose = false } = {}): Promise<AuthsGateway> {
  const gw = await startTestGateway();
  const { leakedSecrets } = authHelpers(() => gw);
  const close = async () => {
    const leaked = checkSecretsOnClose ? leakedSecrets() : [];
    await gw.close();
    expect(leaked).toEqual([]);
  };
  return { gw, close };
}
