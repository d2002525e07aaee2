import {
  ConnectorCallError,
  type ActionResult,
  type ConfirmAnswer,
  type ConnectionStart,
  type DeleteConnector,
  type DeleteRequest,
  type DeleteResult,
  type MessageActionConnector,
  type MessageActionRequest,
  type OAuthAnswer,
  type Page,
  type ProviderSendJob,
  type SendConnector,
  type SendRequest,
  type SendResult,
  type SessionChannel,
  type SessionConnector,
} from '../connector.js';
import { clip, type CallOutcome, type ProviderHttp } from '../http.js';

export interface ConnectorProtocolOptions {
  /** GATEWAY_CONNECTOR_URL; null: not configured. */
  baseUrl: string | null;
  /** GATEWAY_CONNECTOR_TOKEN, sent as `Authorization: Bearer`. */
  token: string | null;
}

/**
 * The outbound half of our connector protocol (docs/connector-protocol.md, "Calls from the
 * gateway"): sessions of session-based providers, their connection steps, their sends, deletes,
 * reactions, edits and read receipts. The inbound half (the connector's events) is
 * src/ingest/connector.ts.
 */
export class ConnectorProtocolClient
  implements SendConnector, SessionConnector, DeleteConnector, MessageActionConnector
{
  constructor(
    private readonly http: ProviderHttp,
    private readonly options: ConnectorProtocolOptions,
  ) {}

  async startSession(channel: SessionChannel): Promise<ConnectionStart> {
    const body = await this.expect('PUT', `/sessions/${channel.id}`, {
      provider: channel.provider,
      settings: channel.settings,
      credentials: channel.credentials,
      callback: { url: channel.callback.url, signing_secret: channel.callback.signingSecret },
    });
    const answer = object(body);
    const start: ConnectionStart = {};
    if (typeof answer.qr === 'string') start.qr = answer.qr;
    if (typeof answer.code === 'string') start.code = answer.code;
    if (typeof answer.oauth_provider_url === 'string') start.oauth_provider_url = answer.oauth_provider_url;
    if (answer.state === 'enabled' || answer.state === 'pending') start.state = answer.state;
    return start;
  }

  async requestCode(
    channel: SessionChannel,
    params: { challenge_variant?: string; challenge_type?: string },
  ): Promise<Record<string, unknown>> {
    return object(await this.expect('POST', `/sessions/${channel.id}/request_code`, params));
  }

  async confirm(
    channel: SessionChannel,
    params: { type: string; code?: string; password?: string; variant?: number },
  ): Promise<ConfirmAnswer> {
    const answer = object(await this.expect('POST', `/sessions/${channel.id}/confirm`, params));
    return {
      state: answer.state === 'enabled' ? 'enabled' : 'pending',
      ...(Array.isArray(answer.two_factor_requires)
        ? { two_factor_requires: answer.two_factor_requires as ConfirmAnswer['two_factor_requires'] }
        : {}),
      ...(Array.isArray(answer.confirmation_requires)
        ? { confirmation_requires: answer.confirmation_requires as ConfirmAnswer['confirmation_requires'] }
        : {}),
    };
  }

  async listPages(channel: SessionChannel): Promise<Page[]> {
    const answer = object(await this.expect('GET', `/sessions/${channel.id}/pages`));
    return Array.isArray(answer.pages)
      ? (answer.pages as Page[]).filter((p) => typeof p?.id === 'string' && typeof p?.name === 'string')
      : [];
  }

  async enablePage(
    channel: SessionChannel,
    pageId: string,
    syncPeriod: string,
  ): Promise<{ state: 'enabled' | 'pending' }> {
    const answer = object(
      await this.expect('POST', `/sessions/${channel.id}/pages/${encodeURIComponent(pageId)}`, {
        sync_period: syncPeriod,
      }),
    );
    return { state: answer.state === 'pending' ? 'pending' : 'enabled' };
  }

  async disconnect(channel: SessionChannel): Promise<void> {
    await this.expect('DELETE', `/sessions/${channel.id}`);
  }

  async userExists(channel: SessionChannel, phone: string): Promise<boolean> {
    const answer = object(await this.expect('GET', `/sessions/${channel.id}/contacts/${encodeURIComponent(phone)}`));
    if (typeof answer.exists !== 'boolean')
      throw new ConnectorCallError(false, {
        code: 'bad_provider_answer',
        title: 'The connector answered a contact check without exists.',
      });
    return answer.exists;
  }

  async completeOAuth(channel: SessionChannel, params: { code?: string; page?: string }): Promise<OAuthAnswer> {
    const answer = object(await this.expect('POST', `/sessions/${channel.id}/oauth`, params));
    const pages = Array.isArray(answer.pages)
      ? (answer.pages as Page[]).filter((p) => typeof p?.id === 'string' && typeof p?.name === 'string')
      : undefined;
    const account = object(answer.account);
    return {
      state: answer.state === 'enabled' ? 'enabled' : 'pending',
      ...(pages === undefined ? {} : { pages }),
      account: {
        ...(typeof account.phone === 'string' ? { phone: account.phone } : {}),
        ...(typeof account.username === 'string' ? { username: account.username } : {}),
      },
    };
  }

  async deleteMessages(request: DeleteRequest, idempotencyKey: string): Promise<DeleteResult> {
    if (this.options.baseUrl === null) return notConfigured('delete');
    const outcome = await this.http.call(
      'POST',
      `${this.options.baseUrl}/sessions/${request.channel_id}/messages/delete`,
      { ...this.auth(), 'idempotency-key': idempotencyKey },
      { chat_id: request.chat_id, ids: request.external_ids },
    );
    if (!outcome.ok) return failedCall(outcome);
    return { kind: 'deleted' };
  }

  /**
   * A reaction (`PUT .../reaction`, the empty emoji removes it), an edit (`PATCH` the message) or a
   * read receipt (`POST .../read`, the chat read up to the message), with the job id as idempotency key.
   */
  async act(request: MessageActionRequest, idempotencyKey: string): Promise<ActionResult> {
    if (this.options.baseUrl === null) return notConfigured('act');
    const { action } = request;
    const session = `${this.options.baseUrl}/sessions/${request.channel_id}`;
    const message = `${session}/messages/${encodeURIComponent(request.external_id)}`;
    const call =
      action.action === 'read'
        ? {
            method: 'POST' as const,
            url: `${session}/read`,
            body: { chat_id: request.chat_id, up_to: request.external_id },
          }
        : action.action === 'edit'
          ? { method: 'PATCH' as const, url: message, body: { chat_id: request.chat_id, text: action.text } }
          : {
              method: 'PUT' as const,
              url: `${message}/reaction`,
              body: { chat_id: request.chat_id, emoji: action.action === 'react' ? action.emoji : '' },
            };
    const outcome = await this.http.call(
      call.method,
      call.url,
      { ...this.auth(), 'idempotency-key': idempotencyKey },
      call.body,
    );
    if (!outcome.ok) return failedCall(outcome);
    return { kind: 'done' };
  }

  async send(job: ProviderSendJob & { send: SendRequest }): Promise<SendResult> {
    if (this.options.baseUrl === null) return notConfigured('send');
    const { send } = job;
    const outcome = await this.http.call(
      'POST',
      `${this.options.baseUrl}/sessions/${job.channel_id}/messages`,
      // The job id makes a repeated send (after a timeout or a crash) the same send at the connector.
      { ...this.auth(), 'idempotency-key': job.job_id },
      {
        to: { id: send.recipient.external_id, phone: send.recipient.phone },
        text: send.text,
        attachment: send.attachment,
        reply_to: send.reply_to,
      },
    );
    if (!outcome.ok) return failedCall(outcome);
    const id = object(outcome.answer.body).id;
    if (typeof id !== 'string' || id === '')
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'bad_provider_answer', title: 'The connector answered without a message id.' },
      };
    return { kind: 'sent', externalId: id };
  }

  private auth(): Record<string, string> {
    return this.options.token === null ? {} : { authorization: `Bearer ${this.options.token}` };
  }

  /** One connection-flow call; throws ConnectorCallError unless it answered 2xx. */
  private async expect(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    if (this.options.baseUrl === null)
      throw new ConnectorCallError(false, { code: 'not_configured', title: 'GATEWAY_CONNECTOR_URL is not set.' });
    const outcome = await this.http.call(method, `${this.options.baseUrl}${path}`, this.auth(), body);
    if (!outcome.ok) throw new ConnectorCallError(outcome.permanent, protocolError(outcome));
    return outcome.answer.body;
  }
}

function object(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** A send, delete or action without GATEWAY_CONNECTOR_URL: a final failure. */
function notConfigured(verb: 'send' | 'delete' | 'act') {
  return {
    kind: 'failed',
    permanent: true,
    error: { code: 'not_configured', title: `Cannot ${verb}: GATEWAY_CONNECTOR_URL is not set.` },
  } as const;
}

/** A send, delete or action the connector did not take: final or not as the call says, with its Retry-After. */
function failedCall(outcome: Extract<CallOutcome, { ok: false }>) {
  return {
    kind: 'failed',
    permanent: outcome.permanent,
    error: protocolError(outcome),
    retryAfterMs: outcome.retryAfterMs,
  } as const;
}

/** `{error: {code, title}}` of the connector when it gave one. */
function protocolError(outcome: Extract<CallOutcome, { ok: false }>): { code: string; title: string } {
  const error = object(object(outcome.body).error);
  return {
    code: typeof error.code === 'string' && /^[a-z0-9_]{1,64}$/.test(error.code) ? error.code : outcome.error.code,
    title: clip(error.title) ?? outcome.error.title,
  };
}
