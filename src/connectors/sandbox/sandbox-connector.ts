import { randomBytes, randomInt } from 'node:crypto';
import { confirmationMethod } from '../../presenters/auth.js';
import type { IngestItem } from '../../domain/provider-facts.js';
import type {
  ConfirmAnswer,
  ConnectionStart,
  Page,
  ProviderSendJob,
  ProviderTemplate,
  SendConnector,
  SendRequest,
  SendResult,
  LaterStatus,
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
 * `delivered` one step later, `read` one more step later. A text of exactly `/fail` is refused
 * permanently. Its later news travels as normalized facts on `gateway.inbound`, the path of every
 * sender outcome (bot-style providers have no delivery receipts to imitate).
 */
export class SandboxConnector implements SendConnector, SessionConnector, TemplateSource {
  constructor(
    private readonly stepMs: number,
    private readonly report: SandboxReporter,
  ) {}

  async startSession(channel: SessionChannel): Promise<ConnectionStart> {
    const method = confirmationMethod(channel);
    switch (method) {
      case 'qr':
        this.report(channel.id, [{ kind: 'qr', qr: sandboxQr(channel.id) }], 2 * this.stepMs);
        this.connectLater(channel.id, 'sandbox: QR code scanned');
        return { qr: sandboxQr(channel.id), state: 'pending' };
      case 'pairing_code':
        this.connectLater(channel.id, 'sandbox: pairing code entered');
        return { code: pairingCode(), state: 'pending' };
      case 'code':
        // The provider "sent" the user a code; any code passed to enable or confirm is accepted.
        return { state: 'pending' };
      default:
        if (channel.provider === 'social_c_business') {
          this.report(channel.id, [{ kind: 'pages', pages: SANDBOX_PAGES }], this.stepMs);
          return { oauth_provider_url: `https://sandbox.invalid/oauth/authorize?channel=${channel.id}`, state: 'pending' };
        }
        return { state: 'enabled' };
    }
  }

  async requestCode(channel: SessionChannel): Promise<Record<string, unknown>> {
    switch (channel.provider) {
      case 'chat_a':
        this.connectLater(channel.id, 'sandbox: pairing code entered');
        return { sessionId: `sbx-${randomBytes(8).toString('hex')}`, code: pairingCode(), ttl: '60' };
      case 'chat_b_personal':
        return { code_length: 5, code_type: 'sms', expires_in: 120, next_type: 'call', session_id: randomInt(1, 2 ** 31) };
      default:
        return {};
    }
  }

  /** The phone "connects" 4 steps later, and the history is synchronized one step after that. */
  private connectLater(channelId: number, reason: string): void {
    this.report(channelId, [{ kind: 'state', state: 'enabled', reason }], 4 * this.stepMs);
    this.report(channelId, [{ kind: 'notice', notice: 'synchronized', at: Date.now() + 5 * this.stepMs }], 5 * this.stepMs);
  }

  async confirm(): Promise<ConfirmAnswer> {
    return { state: 'enabled' };
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
      return { kind: 'failed', permanent: true, error: { code: 'sandbox_refused', title: `The sandbox refuses every message "${SANDBOX_REFUSE_TEXT}".` } };
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
      { id: 'sbx_welcome', name: 'welcome', language: 'en', body: 'Hello {{1}}, welcome to {{2}}!', header_content_type: null, header: null, namespace: 'sandbox' },
      { id: 'sbx_order_shipped', name: 'order_shipped', language: 'en', body: 'Your order {{1}} has shipped.', header_content_type: 'text', header: 'Good news', namespace: 'sandbox' },
    ];
  }
}

function sandboxQr(channelId: number): string {
  return `sandbox-qr:${channelId}:${randomBytes(12).toString('base64url')}`;
}

function pairingCode(): string {
  const letters = randomBytes(8).toString('hex').toUpperCase();
  return `${letters.slice(0, 4)}-${letters.slice(4, 8)}`;
}
