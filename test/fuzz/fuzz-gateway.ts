import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { seedCompany, seedConversation } from '../helpers/seed.js';
import { eventually } from '../helpers/wait.js';

/** The knobs of a fuzz run: FUZZ_SEED makes a run repeatable, FUZZ_RUNS sets its size per property. */
export const FUZZ = {
  seed: process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED),
  runs: Number(process.env.FUZZ_RUNS ?? 40),
};
if (!Number.isSafeInteger(FUZZ.seed) || !Number.isSafeInteger(FUZZ.runs) || FUZZ.runs < 1) {
  throw new Error(`FUZZ_SEED and FUZZ_RUNS must be integers (got ${process.env.FUZZ_SEED}, ${process.env.FUZZ_RUNS})`);
}

export const ADMIN_TOKEN = 'admin-token-of-the-fuzz-suite-0123';
/**
 * Small limits, so that bodies over them are cheap to send; files of a MiB, so that an upload over
 * the limit meets the back-pressure of the disk as large uploads do.
 */
export const LIMITS = { bodyBytes: 4096, attachmentBytes: 1024 * 1024, queryBytes: 2048, jsonDepth: 32 };
/** A request unanswered this long counts as hung. */
const HANG_MS = 5_000;

/** What the fuzz suite works on: account A's resources, account B's (foreign ids), and secrets. */
export interface FuzzWorld {
  gw: TestGateway;
  own: {
    company: number;
    chatB: number;
    cloud: number;
    session: number;
    conversation: number;
    message: number;
    webhook: number;
    attachmentUrl: string;
  };
  foreign: { company: number; chatB: number; conversation: number; message: number; webhook: number };
  otherToken: string;
  /** Sessions of the console and of account A's company portal, once a suite opened them. */
  sessions?: { console: WebSession; portal: WebSession };
}

/** A web session as a browser holds it: its cookie, and the CSRF token its changes carry. */
export interface WebSession {
  cookie: string;
  csrf: string;
}

/** A gateway with the admin API on, small limits, and resources of two accounts. */
export async function startFuzzGateway(): Promise<FuzzWorld> {
  const gw = await startTestGateway({
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_BODY_LIMIT_BYTES: String(LIMITS.bodyBytes),
    GATEWAY_ATTACHMENT_MAX_BYTES: String(LIMITS.attachmentBytes),
    GATEWAY_QUERY_MAX_BYTES: String(LIMITS.queryBytes),
    GATEWAY_LOG_LEVEL: 'warn',
    // The sandbox mounts the last admin route (sandbox messages); its step is long enough that no
    // QR is refreshed or "scanned" while the suite runs.
    GATEWAY_SANDBOX: 'true',
    GATEWAY_SANDBOX_STEP: '1h',
    // The suite sends wrong admin tokens by the hundred from one address, between requests with the
    // right one: the throttle (test/security/auth-throttle.test.ts) would make them wait.
    GATEWAY_ADMIN_AUTH_FREE_FAILURES: '1000000',
    GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES: '1000000',
  });
  const a = await seedCompany(gw, gw.token, 'Fuzz A');
  const created = async (
    res: Promise<{
      status: number;
      body: { data?: { external_id?: number }; webhook?: { id?: number }; attachment?: { attachment_url?: string } };
      text: string;
    }>,
  ) => {
    const answer = await res;
    if (answer.status !== 201) throw new Error(`seeding failed: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const cloud = (
    await created(
      gw.request('POST', `/p1/companies/${a.companyId}/channels`, {
        json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'cloud-token' },
      }),
    )
  ).data!.external_id!;
  const session = (
    await created(gw.request('POST', `/p1/companies/${a.companyId}/channels`, { json: { provider: 'chat_a' } }))
  ).data!.external_id!;
  const conversation = seedConversation(gw, a, { externalTimes: [Date.now() - 1000] });
  const webhook = (
    await created(
      gw.request('POST', `/api/p2/companies/${a.companyId}/webhooks`, {
        json: { url: 'https://hooks.example.com/fuzz', active: false },
      }),
    )
  ).webhook!.id!;
  const form = new FormData();
  form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
  const upload = await fetch(`${gw.baseUrl}/api/p2/companies/${a.companyId}/attachments`, {
    method: 'POST',
    body: form,
    headers: { 'x-private-api-token': gw.token },
  });
  const attachmentUrl = ((await upload.json()) as { attachment: { attachment_url: string } }).attachment.attachment_url;

  const otherToken = await gw.createAccount('fuzz other');
  const b = await seedCompany(gw, otherToken, 'Fuzz B');
  const foreignConversation = seedConversation(gw, b, { sender: '555000222', externalTimes: [Date.now() - 1000] });
  const foreignWebhook = (
    await created(
      gw.request('POST', `/api/p2/companies/${b.companyId}/webhooks`, {
        token: otherToken,
        json: { url: 'https://hooks.example.com/b', active: false },
      }),
    )
  ).webhook!.id!;

  const world: FuzzWorld = {
    gw,
    own: {
      company: a.companyId,
      chatB: a.channelId,
      cloud,
      session,
      conversation: conversation.conversationId,
      message: conversation.messageIds[0]!,
      webhook,
      attachmentUrl,
    },
    foreign: {
      company: b.companyId,
      chatB: b.channelId,
      conversation: foreignConversation.conversationId,
      message: foreignConversation.messageIds[0]!,
      webhook: foreignWebhook,
    },
    otherToken,
  };
  await settle(world);
  return world;
}

/**
 * Waits until the background work the seeding started is done: the template sync of the cloud
 * channel (it writes all of the sandbox's templates in one transaction), every outbox row
 * published, and every stream message handled (a message leaves the log once its handler
 * finished and it was committed).
 */
async function settle(world: FuzzWorld): Promise<void> {
  const db = world.gw.gateway.store.db;
  const streamRows = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM stream_messages');
  const templates = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM templates WHERE channel_id = ?');
  await eventually(
    'the background work of the seeding done',
    () =>
      templates.get(world.own.cloud)!.n > 0 &&
      world.gw.gateway.store.outbox.lag().pending === 0 &&
      streamRows.get()!.n === 0,
  );
}

/** A digest of every row of every table, and the files of the data dir beside the store. */
export function snapshot({ gw }: FuzzWorld): { store: string; files: string } {
  const db = gw.gateway.store.db;
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  const hash = createHash('sha256');
  for (const { name } of tables) {
    hash.update(`\u0001${name}`);
    for (const row of db
      .prepare(`SELECT ${columnsOf(db, name)} FROM "${name}"`)
      .raw()
      .iterate())
      hash.update(
        JSON.stringify(row, (_k, v: unknown) =>
          typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('hex') : v,
        ),
      );
  }
  return { store: hash.digest('hex'), files: listFiles(gw.dataDir).join('\n') };
}

/**
 * The columns a snapshot compares: all but a web session's idle end and an API token's last use,
 * which move on with use (at most once a minute) whatever the request asked for.
 */
function columnsOf(db: TestGateway['gateway']['store']['db'], table: string): string {
  const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map(
    (c) => c.name,
  );
  return columns
    .filter(
      (column) =>
        !(table === 'web_sessions' && column === 'expires_at') &&
        !(table === 'api_tokens' && column === 'last_used_at'),
    )
    .map((column) => `"${column}"`)
    .join(', ');
}

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/^gateway\.db(-wal|-shm|-journal)?$/.test(entry.name))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** One request as the fuzz suite sends it: the path and query as raw text, the body as raw bytes. */
export interface FuzzRequest {
  method: string;
  /** Path and query, sent exactly as given (may hold malformed escapes). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface FuzzAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/**
 * Sends the request over a fresh connection. A connection dropped before a complete answer, or no
 * answer within HANG_MS, fails the property (a refused request must still be answered).
 */
export function send(world: FuzzWorld, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...request.headers,
      ...(request.body === undefined ? {} : { 'content-length': String(request.body.length) }),
    };
    const req = http.request({
      host: '127.0.0.1',
      port: world.gw.gateway.port,
      method: request.method,
      path: request.target,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${HANG_MS} ms to ${describe(request)}`));
    }, HANG_MS);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`the answer to ${describe(request)} was cut: ${error.message}`));
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`the connection of ${describe(request)} was dropped: ${error.message}`));
    });
    req.end(request.body);
  });
}

export function describe(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : ` body(${request.body.length})=${JSON.stringify(request.body.subarray(0, 300).toString('utf8'))}`;
  return `${request.method} ${request.target.slice(0, 300)} ${JSON.stringify(request.headers)}${body}`;
}

/**
 * The property every fuzzed request keeps: a 4xx among the statuses its operation documents, in
 * the contract's error shape, and the store and the data dir exactly as they were.
 */
export async function expectRefusedLeavingNothing(
  world: FuzzWorld,
  request: FuzzRequest,
  documented: readonly number[],
): Promise<FuzzAnswer> {
  const before = snapshot(world);
  const answer = await send(world, request);
  const context = `${answer.status} ${answer.text.slice(0, 400)}\n  for ${describe(request)}`;
  expect(answer.status >= 400 && answer.status < 500, `a 4xx: ${context}`).toBe(true);
  expect(documented, `a documented status: ${context}`).toContain(answer.status);
  expectErrorBody(answer, context);
  expect(snapshot(world), `nothing stored or changed: ${context}`).toEqual(before);
  return answer;
}

/** `{errors: [{status, code, title, detail, source?}]}` with the answer's status in every entry. */
export function expectErrorBody(answer: FuzzAnswer, context: string): void {
  const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
  expect(Array.isArray(errors) && errors.length > 0, `the error shape: ${context}`).toBe(true);
  for (const entry of errors as Record<string, unknown>[]) {
    expect(
      Object.keys(entry)
        .filter((k) => k !== 'source')
        .sort(),
      `error entry keys: ${context}`,
    ).toEqual(['code', 'detail', 'status', 'title']);
    expect(entry.status, `error entry status: ${context}`).toBe(answer.status);
    expect(
      typeof entry.code === 'string' && typeof entry.title === 'string' && typeof entry.detail === 'string',
      `error entry fields: ${context}`,
    ).toBe(true);
  }
}
