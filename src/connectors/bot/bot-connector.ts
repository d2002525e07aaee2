import type {
  ActionResult,
  MessageActionConnector,
  MessageActionRequest,
  ProviderSendJob,
  SendConnector,
  SendRequest,
  SendResult,
} from '../connector.js';
import { clip, isScalar, type CallOutcome, type ProviderHttp } from '../http.js';

/**
 * The bot-style API (`chat_b`): `POST <base>/bot<token>/<method>` with `sendMessage`, `sendPhoto`,
 * `sendDocument`, `sendVoice` (and `sendAudio`, `sendVideo`), answering `{ok: true, result:
 * {message_id, chat: {id}}}` or `{ok: false, error_code, description, parameters?: {retry_after}}`.
 * Message ids are unique per chat only, so the external id is `<chat id>:<message id>` as in callbacks.
 */
export class BotConnector implements SendConnector, MessageActionConnector {
  constructor(
    private readonly http: ProviderHttp,
    private readonly baseUrl: string | null,
  ) {}

  async send(job: ProviderSendJob & { send: SendRequest }): Promise<SendResult> {
    const { send } = job;
    const token = send.credentials.token;
    if (this.baseUrl === null)
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'not_configured', title: 'Cannot send: GATEWAY_CHAT_B_API_URL is not set.' },
      };
    if (typeof token !== 'string')
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'not_configured', title: 'Cannot send: the channel has no bot token.' },
      };
    const { method, body } = botCall(send);
    // The token is part of the path: this URL is never logged nor put into an error.
    const outcome = await this.http.call('POST', `${this.baseUrl}/bot${token}/${method}`, {}, body);
    if (outcome.ok) {
      const result = (
        outcome.answer.body as { ok?: unknown; result?: { message_id?: unknown; chat?: { id?: unknown } } } | undefined
      )?.result;
      if (typeof result?.message_id !== 'number' && typeof result?.message_id !== 'string') {
        return {
          kind: 'failed',
          permanent: true,
          error: { code: 'bad_provider_answer', title: 'The provider answered without a message_id.' },
        };
      }
      const chatId = result.chat?.id;
      const chat =
        typeof chatId === 'number' || typeof chatId === 'string' ? String(chatId) : send.recipient.external_id;
      return { kind: 'sent', externalId: `${chat}:${String(result.message_id)}` };
    }
    return botFailure(outcome);
  }

  /** The company's reaction (none removes it) or an edit of its message's text; the bot API takes no read receipts. */
  async act(request: MessageActionRequest): Promise<ActionResult> {
    const token = request.credentials.token;
    const call = botActionCall(request);
    if (this.baseUrl === null || typeof token !== 'string' || call === null)
      return {
        kind: 'failed',
        permanent: true,
        error: { code: 'not_configured', title: 'Cannot act: no bot API URL, no bot token, or no such action.' },
      };
    // The token is part of the path: this URL is never logged nor put into an error.
    const outcome = await this.http.call('POST', `${this.baseUrl}/bot${token}/${call.method}`, {}, call.body);
    return outcome.ok ? { kind: 'done' } : botFailure(outcome);
  }
}

/** A refused or failed call, with the provider's own code and description when it gave them. */
function botFailure(outcome: Extract<CallOutcome, { ok: false }>): Extract<SendResult, { kind: 'failed' }> {
  const answer = outcome.body as
    { error_code?: unknown; description?: unknown; parameters?: { retry_after?: unknown } } | undefined;
  const retryAfter =
    typeof answer?.parameters?.retry_after === 'number' ? answer.parameters.retry_after * 1000 : outcome.retryAfterMs;
  return {
    kind: 'failed',
    permanent: outcome.permanent,
    error: {
      code: isScalar(answer?.error_code) ? `provider_${answer.error_code}` : outcome.error.code,
      title: clip(answer?.description) ?? outcome.error.title,
    },
    retryAfterMs: retryAfter,
  };
}

/** The bot API's call of a message action: setMessageReaction, or editMessageText (editMessageCaption under media). */
export function botActionCall(request: MessageActionRequest): { method: string; body: Record<string, unknown> } | null {
  const messageId = Number(request.external_id.split(':').at(-1));
  const { action } = request;
  if (!Number.isInteger(messageId) || action.action === 'read') return null;
  const body = { chat_id: request.chat_id, message_id: messageId };
  if (action.action === 'edit')
    return request.has_attachment
      ? { method: 'editMessageCaption', body: { ...body, caption: action.text } }
      : { method: 'editMessageText', body: { ...body, text: action.text } };
  const reaction = action.action === 'react' ? [{ type: 'emoji', emoji: action.emoji }] : [];
  return { method: 'setMessageReaction', body: { ...body, reaction } };
}

/** The method and body of one send: text, or the attachment's kind with its URL and the text as caption. */
export function botCall(send: SendRequest): { method: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = { chat_id: send.recipient.external_id };
  // Our ids of bot-style messages are `<chat id>:<message id>`: the provider wants the message id.
  if (send.reply_to !== null) {
    const messageId = Number(send.reply_to.split(':').at(-1));
    if (Number.isInteger(messageId))
      body.reply_parameters = { message_id: messageId, allow_sending_without_reply: true };
  }
  if (send.attachment === null) return { method: 'sendMessage', body: { ...body, text: send.text ?? '' } };
  const field = { image: 'photo', video: 'video', audio: 'audio', voice: 'voice', document: 'document' }[
    send.attachment.kind
  ];
  const method = `send${field[0]!.toUpperCase()}${field.slice(1)}`;
  return { method, body: { ...body, [field]: send.attachment.url, ...(send.text ? { caption: send.text } : {}) } };
}
