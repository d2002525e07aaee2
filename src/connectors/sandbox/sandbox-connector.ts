import { randomBytes, randomInt } from 'node:crypto';
import { confirmationMethod } from '../../presenters/auth.js';
import type { IngestItem } from '../../domain/provider-facts.js';
import type {
  ActionResult,
  ConfirmAnswer,
  ConnectionStart,
  DeleteConnector,
  DeleteResult,
  OAuthAnswer,
  Page,
  ProviderSendJob,
  ProviderTemplate,
  SendConnector,
  SendRequest,
  SendResult,
  LaterStatus,
  MessageActionConnector,
  MessageActionRequest,
  SessionChannel,
  SessionConnector,
  TemplateSource,
} from '../connector.js';

/** Reports what a provider would call back with later, as normalized facts on `gateway.inbound`. */
export type SandboxReporter = (channelId: number, items: IngestItem[], afterMs: number) => void;

/** Phone numbers ending so have no account at the sandbox (user_exists answers false). */
export const SANDBOX_NOBODY_SUFFIX = '0000';

/** The text that makes the sandbox refuse a send for good (to try the `error` path). */
export const SANDBOX_REFUSE_TEXT = '/fail';

export const SANDBOX_PAGES: Page[] = [
  { id: 'sbx-page-1', name: 'Sandbox Store', username: 'sandbox.store' },
  { id: 'sbx-page-2', name: 'Sandbox Blog' },
];

/**
 * The built-in sandbox (GATEWAY_SANDBOX=true): one provider that behaves like every provider code,
 * on one machine. It shows a QR (refreshed once) and "scans" it a few steps later, shows a pairing
 * code, accepts any code or password, lists two pages, and "delivers" every send: `sent` at once,
 * `delivered` one step later, `read` one more step later; it takes every reaction, edit, delete and
 * read receipt. A text (or an edit) of exactly `/fail` is refused permanently. Its later news
 * travels as normalized facts on `gateway.inbound`, the path of every sender outcome (bot-style
 * providers have no delivery receipts to imitate).
 */
export class SandboxConnector
  implements SendConnector, SessionConnector, TemplateSource, DeleteConnector, MessageActionConnector
{
  constructor(
    private readonly stepMs: number,
    private readonly report: SandboxReporter,
  ) {}

  async startSession(channel: SessionChannel): Promise<ConnectionStart> {
    const method = confirmationMethod(channel);
    switch (method) {
      case 'qr':
        this.report(channel.id, [{ kind: 'qr', qr: sandboxQr(channel.id) }], 2 * this.stepMs);
        this.connectLater(channel, 'sandbox: QR code scanned');
        return { qr: sandboxQr(channel.id), state: 'pending' };
      case 'pairing_code':
        this.connectLater(channel, 'sandbox: pairing code entered');
        return { code: pairingCode(), state: 'pending' };
      case 'oauth':
        // The sandbox is the OAuth provider: its authorization address is the gateway's own redirect, already authorized.
        return { oauth_provider_url: oauthRedirect(channel), state: 'pending' };
      case 'code':
        // The provider "sent" the user a code; any code passed to enable or confirm is accepted.
        return { state: 'pending' };
      default:
        if (channel.provider === 'social_c_business') {
          this.report(channel.id, [{ kind: 'pages', pages: SANDBOX_PAGES }], this.stepMs);
          return {
            oauth_provider_url: `https://sandbox.invalid/oauth/authorize?channel=${channel.id}`,
            state: 'pending',
          };
        }
        return { state: 'enabled' };
    }
  }

  async requestCode(channel: SessionChannel): Promise<Record<string, unknown>> {
    switch (channel.provider) {
      case 'chat_a':
        this.connectLater(channel, 'sandbox: pairing code entered');
        return { sessionId: `sbx-${randomBytes(8).toString('hex')}`, code: pairingCode(), ttl: '60' };
      case 'chat_b_personal':
        return {
          code_length: 5,
          code_type: 'sms',
          expires_in: 120,
          next_type: 'call',
          session_id: randomInt(1, 2 ** 31),
        };
      default:
        return {};
    }
  }

  /**
   * The phone "connects" 4 steps later (with the account's phone and user name, and the history of
   * its sync period), and the history is synchronized one step after that.
   */
  private connectLater(channel: SessionChannel, reason: string): void {
    this.report(
      channel.id,
      [{ kind: 'state', state: 'enabled', reason, account: SANDBOX_ACCOUNT }, ...sandboxHistory(channel)],
      4 * this.stepMs,
    );
    this.report(
      channel.id,
      [{ kind: 'notice', notice: 'synchronized', at: Date.now() + 5 * this.stepMs }],
      5 * this.stepMs,
    );
  }

  async confirm(channel: SessionChannel): Promise<ConfirmAnswer> {
    this.reportHistory(channel);
    return { state: 'enabled' };
  }

  /**
   * The user authorized: connected, or (`social_a`, whose communities are connected one by one) the
   * communities to pick from, each with its own authorization address.
   */
  async completeOAuth(channel: SessionChannel, params: { page?: string }): Promise<OAuthAnswer> {
    if (channel.provider === 'social_a' && params.page === undefined) {
      return {
        state: 'pending',
        pages: SANDBOX_PAGES.map((page) => ({
          id: page.id,
          name: page.name,
          oauth_provider_url: oauthRedirect(channel, page.id),
        })),
      };
    }
    this.reportHistory(channel);
    return { state: 'enabled', account: { username: 'sandbox.account' } };
  }

  async deleteMessages(): Promise<DeleteResult> {
    return { kind: 'deleted' };
  }

  /** Takes every reaction, edit and read receipt, except an edit to exactly `/fail` (refused for good). */
  async act(request: MessageActionRequest): Promise<ActionResult> {
    if (request.action.action === 'edit' && request.action.text.trim() === SANDBOX_REFUSE_TEXT)
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'sandbox_refused', title: `The sandbox refuses every edit to "${SANDBOX_REFUSE_TEXT}".` },
      };
    return { kind: 'done' };
  }

  /** History the provider synchronizes once connected: the sample messages newer than the auth's sync_messages_from. */
  private reportHistory(channel: SessionChannel): void {
    const history = sandboxHistory(channel);
    if (history.length > 0) this.report(channel.id, history, this.stepMs);
  }

  async listPages(): Promise<Page[]> {
    return SANDBOX_PAGES;
  }

  async enablePage(): Promise<{ state: 'enabled' }> {
    return { state: 'enabled' };
  }

  async disconnect(): Promise<void> {}

  /** Every number has an account, except those ending in 0000 (to try the other answer). */
  async userExists(_channel: SessionChannel, phone: string): Promise<boolean> {
    return !phone.endsWith(SANDBOX_NOBODY_SUFFIX);
  }

  async send(job: ProviderSendJob & { send: SendRequest }): Promise<SendResult & { later?: LaterStatus[] }> {
    if (job.send.text?.trim() === SANDBOX_REFUSE_TEXT) {
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'sandbox_refused', title: `The sandbox refuses every message "${SANDBOX_REFUSE_TEXT}".` },
      };
    }
    return {
      kind: 'sent',
      externalId: `sbx_${randomBytes(10).toString('hex')}`,
      later: [
        { afterMs: this.stepMs, status: 'delivered' },
        { afterMs: 2 * this.stepMs, status: 'read' },
      ],
    };
  }

  async fetchTemplates(): Promise<ProviderTemplate[]> {
    return [
      {
        id: 'sbx_welcome',
        name: 'welcome',
        language: 'en',
        body: 'Hello {{1}}, welcome to {{2}}!',
        header_content_type: null,
        header: null,
        namespace: 'sandbox',
      },
      {
        id: 'sbx_order_shipped',
        name: 'order_shipped',
        language: 'en',
        body: 'Your order {{1}} has shipped.',
        header_content_type: 'text',
        header: 'Good news',
        namespace: 'sandbox',
      },
    ];
  }
}

/** The account a QR or pairing code connects in the sandbox. */
const SANDBOX_ACCOUNT = { phone: '79000000000', username: 'sandbox.account' };

/** Ages of the sandbox's history messages: within a day, a week, a month, and older than a month. */
export const SANDBOX_HISTORY_AGES_MS = [2 * 3_600_000, 3 * 86_400_000, 20 * 86_400_000, 40 * 86_400_000];

/**
 * The messages a provider holds from before the connection, as incoming messages, limited to those
 * since the auth's `sync_messages_from`; none without it (no sync asked for).
 */
export function sandboxHistory(channel: Pick<SessionChannel, 'id' | 'settings'>, now = Date.now()): IngestItem[] {
  const from =
    typeof channel.settings.sync_messages_from === 'string'
      ? Date.parse(channel.settings.sync_messages_from)
      : Number.NaN;
  if (Number.isNaN(from)) return [];
  return SANDBOX_HISTORY_AGES_MS.filter((age) => now - age >= from).map((age, i) => ({
    kind: 'message',
    externalId: `sbx_history_${channel.id}_${age}`,
    chat: {
      externalId: '79990000001',
      externalPublicId: '79990000001',
      name: 'Sandbox History',
      phone: '79990000001',
      isGroup: false,
    },
    income: true,
    sentAt: now - age,
    text: `History message ${i + 1}`,
    repliedToId: null,
    attachments: [],
    details: null,
  }));
}

/** The gateway's OAuth redirect of a channel, as the provider sends the user's browser to it (`page`: one page's). */
function oauthRedirect(channel: SessionChannel, page?: string): string {
  const query = new URLSearchParams({
    state: typeof channel.credentials.oauth_state === 'string' ? channel.credentials.oauth_state : '',
    code: `sbx-${randomBytes(6).toString('hex')}`,
  });
  if (page !== undefined) query.set('page', page);
  return `${channel.callback.url}/oauth?${query.toString()}`;
}

function sandboxQr(channelId: number): string {
  return `sandbox-qr:${channelId}:${randomBytes(12).toString('base64url')}`;
}

function pairingCode(): string {
  const letters = randomBytes(8).toString('hex').toUpperCase();
  return `${letters.slice(0, 4)}-${letters.slice(4, 8)}`;
}
