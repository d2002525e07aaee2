import {
  ConnectorCallError,
  type ActionResult,
  type MessageActionConnector,
  type MessageActionRequest,
  type ProviderSendJob,
  type ProviderTemplate,
  type SendConnector,
  type SendRequest,
  type SendResult,
  type TemplateSource,
} from '../connector.js';
import { clip, isScalar, type CallOutcome, type ProviderHttp } from '../http.js';

/** The `messaging_product` of the cloud-style API, under the contract's neutral name. */
export const MESSAGING_PRODUCT = 'chat_a';

export interface CloudOptions {
  /** GATEWAY_CHAT_A_BUSINESS_API_URL, version included; null: not configured. */
  baseUrl: string | null;
  /** GATEWAY_CHAT_A_BUSINESS_TOKEN: for channels without a token of their own. */
  systemToken: string | null;
}

/**
 * The cloud-style business API (`chat_a_business`): `POST <base>/<phone_number_id>/messages` with
 * the channel's bearer token (sends, reactions, read receipts); `GET <base>/<business_account_id>/message_templates` for templates.
 * The phone-number id is the channel's `vendor_channel_id`, the business account its
 * `vendor_client_id` (docs/decisions.md, "Provider connectors").
 */
export class CloudConnector implements SendConnector, TemplateSource, MessageActionConnector {
  constructor(
    private readonly http: ProviderHttp,
    private readonly options: CloudOptions,
  ) {}

  async send(job: ProviderSendJob & { send: SendRequest }): Promise<SendResult> {
    const { send } = job;
    const phoneNumberId = send.settings.vendor_channel_id;
    const token = this.tokenOf(send.credentials);
    if (this.options.baseUrl === null) return notConfigured('GATEWAY_CHAT_A_BUSINESS_API_URL is not set');
    if (typeof phoneNumberId !== 'string')
      return notConfigured('the channel has no vendor_channel_id (its phone-number id)');
    if (token === null) return notConfigured('the channel has no token and GATEWAY_CHAT_A_BUSINESS_TOKEN is not set');
    const outcome = await this.http.call(
      'POST',
      `${this.options.baseUrl}/${encodeURIComponent(phoneNumberId)}/messages`,
      auth(token),
      cloudMessage(send),
    );
    if (!outcome.ok)
      return {
        kind: 'failed',
        permanent: outcome.permanent,
        error: cloudError(outcome),
        retryAfterMs: outcome.retryAfterMs,
      };
    const id = (outcome.answer.body as { messages?: { id?: unknown }[] } | undefined)?.messages?.[0]?.id;
    if (typeof id !== 'string')
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'bad_provider_answer', title: 'The provider answered without a message id.' },
      };
    return { kind: 'sent', externalId: id };
  }

  /**
   * The company's reaction (a `reaction` message; the empty emoji removes it) or a read receipt (the
   * message's `status: read`, which marks the chat read up to it). The API edits nothing.
   */
  async act(request: MessageActionRequest): Promise<ActionResult> {
    const { action } = request;
    const phoneNumberId = request.settings.vendor_channel_id;
    const token = this.tokenOf(request.credentials);
    const refused = (title: string): ActionResult => ({
      kind: 'failed',
      permanent: true,
      error: { code: 'not_configured', title },
    });
    if (this.options.baseUrl === null) return refused('GATEWAY_CHAT_A_BUSINESS_API_URL is not set.');
    if (typeof phoneNumberId !== 'string') return refused('The channel has no vendor_channel_id.');
    if (token === null) return refused('The channel has no token and GATEWAY_CHAT_A_BUSINESS_TOKEN is not set.');
    if (action.action === 'edit') return refused('The cloud-style API does not edit messages.');
    const body =
      action.action === 'read'
        ? { messaging_product: MESSAGING_PRODUCT, status: 'read', message_id: request.external_id }
        : {
            messaging_product: MESSAGING_PRODUCT,
            recipient_type: 'individual',
            to: request.chat_id,
            type: 'reaction',
            reaction: { message_id: request.external_id, emoji: action.action === 'react' ? action.emoji : '' },
          };
    const outcome = await this.http.call(
      'POST',
      `${this.options.baseUrl}/${encodeURIComponent(phoneNumberId)}/messages`,
      auth(token),
      body,
    );
    if (outcome.ok) return { kind: 'done' };
    return {
      kind: 'failed',
      permanent: outcome.permanent,
      error: cloudError(outcome),
      retryAfterMs: outcome.retryAfterMs,
    };
  }

  async fetchTemplates(channel: {
    settings: Record<string, unknown>;
    credentials: Record<string, unknown>;
  }): Promise<ProviderTemplate[]> {
    const accountId = channel.settings.vendor_client_id;
    const token = this.tokenOf(channel.credentials);
    if (this.options.baseUrl === null)
      throw new ConnectorCallError(true, {
        code: 'not_configured',
        title: 'GATEWAY_CHAT_A_BUSINESS_API_URL is not set.',
      });
    if (typeof accountId !== 'string')
      throw new ConnectorCallError(true, {
        code: 'not_configured',
        title: 'The channel has no vendor_client_id (its business account id).',
      });
    if (token === null)
      throw new ConnectorCallError(true, {
        code: 'not_configured',
        title: 'The channel has no token and GATEWAY_CHAT_A_BUSINESS_TOKEN is not set.',
      });
    const templates: ProviderTemplate[] = [];
    let url: string | undefined =
      `${this.options.baseUrl}/${encodeURIComponent(accountId)}/message_templates?limit=100`;
    // Follow the provider's cursor, within reason.
    for (let page = 0; url !== undefined && page < 50; page += 1) {
      const outcome: CallOutcome = await this.http.call('GET', url, auth(token));
      if (!outcome.ok) throw new ConnectorCallError(outcome.permanent, cloudError(outcome));
      const body = outcome.answer.body as { data?: CloudTemplate[]; paging?: { next?: string } } | undefined;
      for (const item of body?.data ?? []) {
        const template = toTemplate(item);
        if (template !== null) templates.push(template);
      }
      const next = body?.paging?.next;
      url = typeof next === 'string' && next.startsWith(this.options.baseUrl) ? next : undefined;
    }
    return templates;
  }

  private tokenOf(credentials: Record<string, unknown>): string | null {
    return typeof credentials.token === 'string' ? credentials.token : this.options.systemToken;
  }
}

interface CloudTemplate {
  id?: unknown;
  name?: unknown;
  language?: unknown;
  status?: unknown;
  namespace?: unknown;
  components?: { type?: unknown; format?: unknown; text?: unknown }[];
}

/** Only approved templates can be sent: the others are not synced. */
function toTemplate(item: CloudTemplate): ProviderTemplate | null {
  if (typeof item.id !== 'string' || typeof item.name !== 'string') return null;
  if (item.status !== undefined && item.status !== 'APPROVED') return null;
  const components = Array.isArray(item.components) ? item.components : [];
  const body = components.find((c) => String(c.type).toUpperCase() === 'BODY');
  const header = components.find((c) => String(c.type).toUpperCase() === 'HEADER');
  return {
    id: item.id,
    name: item.name,
    language: typeof item.language === 'string' ? item.language : 'en',
    body: typeof body?.text === 'string' ? body.text : '',
    header_content_type: typeof header?.format === 'string' ? header.format.toLowerCase() : null,
    header: typeof header?.text === 'string' ? header.text : null,
    namespace: typeof item.namespace === 'string' ? item.namespace : null,
  };
}

function auth(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The send body: text, media by the URL of our attachment, or a template with body parameters. */
export function cloudMessage(send: SendRequest): Record<string, unknown> {
  const base: Record<string, unknown> = {
    messaging_product: MESSAGING_PRODUCT,
    recipient_type: 'individual',
    to: send.recipient.phone ?? send.recipient.external_id,
  };
  if (send.reply_to !== null) base.context = { message_id: send.reply_to };
  if (send.template !== null) {
    const components =
      send.template.parameters.length === 0
        ? []
        : [{ type: 'body', parameters: send.template.parameters.map((text) => ({ type: 'text', text })) }];
    return {
      ...base,
      type: 'template',
      template: { name: send.template.name, language: { code: send.template.language }, components },
    };
  }
  if (send.attachment !== null) {
    const type = send.attachment.kind === 'voice' ? 'audio' : send.attachment.kind;
    const media: Record<string, unknown> = { link: send.attachment.url };
    if (send.text !== null && send.text !== '' && type !== 'audio') media.caption = send.text;
    if (type === 'document') media.filename = send.attachment.file_name;
    return { ...base, type, [type]: media };
  }
  return { ...base, type: 'text', text: { body: send.text ?? '', preview_url: false } };
}

/** The provider's own error (`{error: {code, message}}`) when it gave one. */
function cloudError(outcome: Extract<CallOutcome, { ok: false }>): { code: string; title: string } {
  const error = (outcome.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error === undefined) return outcome.error;
  return {
    code: isScalar(error.code) ? `provider_${error.code}` : outcome.error.code,
    title: clip(error.message) ?? outcome.error.title,
  };
}

function notConfigured(why: string): SendResult {
  return { kind: 'failed', permanent: true, error: { code: 'not_configured', title: `Cannot send: ${why}.` } };
}
