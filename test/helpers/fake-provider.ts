import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the fake provider received. */
export interface ReceivedCall {
  family: 'cloud' | 'bot' | 'connector';
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface ScriptedAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A local provider speaking the three shapes the gateway calls (docs/design.md section 8):
 * - cloud-style: `POST /v21.0/<phone_number_id>/messages` → `{messaging_product, contacts, messages: [{id}]}`,
 *   `GET /v21.0/<business_account_id>/message_templates` → `{data: [...], paging}`;
 * - bot-style: `POST /bot<token>/<method>` → `{ok: true, result: {message_id, chat, date}}`;
 * - our connector protocol under `/connector` (docs/connector-protocol.md, "Calls from the gateway":
 *   sessions, sends, reactions, edits, read receipts),
 *   keeping every session's callback address and secret so that it can call back signed.
 * Answers can be scripted per family (`script`); every call is recorded.
 */
export class FakeProvider {
  readonly calls: ReceivedCall[] = [];
  private readonly scripts: Record<string, ScriptedAnswer[]> = { cloud: [], bot: [], connector: [] };
  private readonly sessions = new Map<number, { provider: string; callbackUrl: string; secret: string; body: any }>();
  private readonly idempotent = new Map<string, string>();
  private server!: http.Server;
  private counter = 0;
  url = '';
  /** Templates the cloud-style API lists (raw provider shape). */
  templates: unknown[] = [];
  /** Pages the connector lists for page choice. */
  pages = [
    { id: '17841400008460056', name: 'Acme Store', username: 'acme.store' },
    { id: '17841400008460057', name: 'Acme Outlet' },
  ];
  /** What the connector answers to PUT /sessions/<id>, by provider (default: a QR). */
  sessionAnswers: Record<string, unknown> = {};
  /** What the connector answers to POST .../confirm (default `{state: 'enabled'}`). */
  confirmAnswers: unknown[] = [];
  /** Phone numbers with an account at the provider (GET /sessions/<id>/contacts/<phone>). */
  knownPhones = new Set<string>();

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** GATEWAY_* settings pointing the gateway at this fake. */
  env(): Record<string, string> {
    return {
      GATEWAY_CHAT_A_BUSINESS_API_URL: `${this.url}/v21.0`,
      GATEWAY_CHAT_B_API_URL: this.url,
      GATEWAY_CONNECTOR_URL: `${this.url}/connector`,
      GATEWAY_CONNECTOR_TOKEN: 'connector-token-of-the-tests',
    };
  }

  /** The next answers of a family, in order (then the normal answers again). */
  script(family: 'cloud' | 'bot' | 'connector', ...answers: ScriptedAnswer[]): void {
    this.scripts[family]!.push(...answers);
  }

  callsOf(family: ReceivedCall['family'], pathPart = ''): ReceivedCall[] {
    return this.calls.filter((c) => c.family === family && c.path.includes(pathPart));
  }

  session(channelId: number) {
    return this.sessions.get(channelId);
  }

  /** Posts a connector-protocol event to the gateway, signed with the secret the session was started with. */
  async connectorCallback(channelId: number, event: Record<string, unknown>): Promise<number> {
    const session = this.sessions.get(channelId);
    if (session === undefined) throw new Error(`no session for channel ${channelId}`);
    const body = JSON.stringify(event);
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const response = await fetch(session.callbackUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(session.secret).sign(id, at, body),
      },
      body,
    });
    return response.status;
  }

  /** Posts a cloud-style status callback for a message id, signed with the app secret. */
  async cloudStatus(
    gatewayUrl: string,
    channelId: number,
    appSecret: string,
    messageId: string,
    status: string,
    recipient = '491701234567',
  ): Promise<number> {
    const body = JSON.stringify({
      object: 'chat_a_business_account',
      entry: [
        {
          id: 'WABA1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'chat_a',
                metadata: { display_phone_number: '15550001111', phone_number_id: 'PN1' },
                statuses: [
                  { id: messageId, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient },
                ],
              },
            },
          ],
        },
      ],
    });
    const response = await fetch(`${gatewayUrl}/callbacks/chat_a_business/${channelId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`,
      },
      body,
    });
    return response.status;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const family: ReceivedCall['family'] = path.startsWith('/connector')
      ? 'connector'
      : path.startsWith('/bot')
        ? 'bot'
        : 'cloud';
    const body = text === '' ? undefined : JSON.parse(text);
    this.calls.push({ family, method: req.method ?? 'GET', path, headers: req.headers, body });
    const scripted = this.scripts[family]!.shift();
    const answer = scripted ?? this.answer(family, req.method ?? 'GET', path, req.headers, body);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }

  private answer(
    family: ReceivedCall['family'],
    method: string,
    path: string,
    headers: http.IncomingHttpHeaders,
    body: any,
  ): ScriptedAnswer {
    this.counter += 1;
    if (family === 'cloud') {
      if (method === 'POST' && /^\/v21\.0\/[^/]+\/messages$/.test(path)) {
        return {
          status: 200,
          body: {
            messaging_product: 'chat_a',
            contacts: [{ input: body.to, wa_id: body.to }],
            messages: [{ id: `wamid.FAKE${this.counter}` }],
          },
        };
      }
      if (method === 'GET' && /^\/v21\.0\/[^/]+\/message_templates/.test(path))
        return { status: 200, body: { data: this.templates, paging: {} } };
      return { status: 404, body: { error: { code: 100, message: 'Unknown path' } } };
    }
    if (family === 'bot') {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(path);
      if (match === null || method !== 'POST')
        return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
      return {
        status: 200,
        body: {
          ok: true,
          result: {
            message_id: 1000 + this.counter,
            chat: { id: Number(body.chat_id) || body.chat_id },
            date: Math.floor(Date.now() / 1000),
          },
        },
      };
    }
    if (headers.authorization !== 'Bearer connector-token-of-the-tests')
      return { status: 401, body: { error: { code: 'unauthorized', title: 'bad token' } } };
    const session = /^\/connector\/sessions\/(\d+)(\/.*)?$/.exec(path);
    if (session === null) return { status: 404, body: { error: { code: 'not_found', title: 'no such path' } } };
    const channelId = Number(session[1]);
    const rest = session[2] ?? '';
    if (method === 'PUT' && rest === '') {
      this.sessions.set(channelId, {
        provider: body.provider,
        callbackUrl: body.callback.url,
        secret: body.callback.signing_secret,
        body,
      });
      return {
        status: 200,
        body: this.sessionAnswers[body.provider] ?? { qr: `2@fakeqr${channelId}`, state: 'pending' },
      };
    }
    if (method === 'DELETE' && rest === '') return { status: 204, body: undefined };
    if (method === 'POST' && rest === '/request_code') {
      const provider = this.sessions.get(channelId)?.provider;
      if (provider === 'chat_a')
        return { status: 200, body: { sessionId: `sess-${channelId}`, code: 'ABCD-EFGH', ttl: '60' } };
      if (provider === 'chat_b_personal')
        return {
          status: 200,
          body: { code_length: 5, code_type: 'sms', expires_in: 120, next_type: 'call', session_id: 987654 },
        };
      return { status: 200, body: {} };
    }
    if (method === 'POST' && rest === '/confirm') {
      if (body.code === '00000')
        return { status: 422, body: { error: { code: 'wrong_code', title: 'The code is not the one sent.' } } };
      return { status: 200, body: this.confirmAnswers.shift() ?? { state: 'enabled' } };
    }
    const contact = /^\/contacts\/([^/]+)$/.exec(rest);
    if (method === 'GET' && contact !== null)
      return { status: 200, body: { exists: this.knownPhones.has(decodeURIComponent(contact[1]!)) } };
    if (method === 'GET' && rest === '/pages') return { status: 200, body: { pages: this.pages } };
    if (method === 'POST' && rest.startsWith('/pages/')) return { status: 200, body: { state: 'enabled' } };
    if (method === 'POST' && rest === '/messages') {
      const key = String(headers['idempotency-key'] ?? '');
      const known = this.idempotent.get(key);
      if (known !== undefined) return { status: 200, body: { id: known } };
      const id = `CONN${this.counter}`;
      if (key !== '') this.idempotent.set(key, id);
      return { status: 200, body: { id } };
    }
    // A reaction, an edit, a read receipt: taken.
    if (
      (method === 'PUT' && /^\/messages\/[^/]+\/reaction$/.test(rest)) ||
      (method === 'PATCH' && /^\/messages\/[^/]+$/.test(rest)) ||
      (method === 'POST' && rest === '/read')
    )
      return { status: 200, body: {} };
    return { status: 404, body: { error: { code: 'not_found', title: 'no such path' } } };
  }
}
