/**
 * The gateway the fuzz suite runs against, and the knobs of a run: the seed and size of its
 * properties, small limits that make oversized input cheap, and the resources of two accounts
 * (account A's to use, account B's as foreign ids), seeded and settled before the first request.
 */
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
