import type { PublicUrls } from '../presenters/public-urls.js';
import type { ProviderSendJob, SendJob, SendRequest } from '../domain/messaging.js';
import { sendKindOf } from '../domain/provider-rules.js';
import type { DeleteJob, ProviderDeleteJob } from '../domain/message-deletion.js';
import type { MessageAction, MessageActionJob, ProviderMessageActionJob } from '../domain/message-actions.js';
import type { Store } from '../store/store.js';

/**
 * Resolves a send job when the relay publishes it (docs/decisions.md, "Provider connectors"): the
 * message, its recipient, its attachment's URL, the template and the channel's credentials travel
 * with the job, so that a sender in a `--role worker` process needs no store. Read at publish time,
 * a credential changed before then is the one used. A message or channel gone by then publishes
 * the job without a request, and the sender records why.
 */
export function resolveSendJob(store: Store, job: SendJob, urls: PublicUrls): ProviderSendJob {
  const channel = store.channels.findLive(job.channel_id);
  if (channel === undefined)
    return { ...job, send: null, gone_reason: `channel ${job.channel_id} was deleted before the message was sent` };
  const message = store.messages.findById(job.message_id);
  const conversation = store.conversations.find(job.company_id, job.conversation_id);
  if (message === undefined || conversation === undefined)
    return { ...job, send: null, gone_reason: `message ${job.message_id} no longer exists` };
  const details =
    message.details === null
      ? null
      : (JSON.parse(message.details) as {
          template?: { bizTemplateId?: string; substitutions?: string[]; language?: string };
        });
  const attachment = store.attachments.forMessages([message.id])[0];
  const send: SendRequest = {
    provider: channel.provider,
    credentials: channel.credentials,
    settings: channel.settings,
    recipient: { external_id: conversation.contact_external_id, phone: conversation.contact_phone },
    text: message.text,
    attachment:
      attachment === undefined
        ? null
        : {
            url: urls.attachmentFile(attachment),
            mime_type: attachment.mime_type,
            file_name: attachment.file_name,
            kind: sendKindOf(attachment),
          },
    reply_to: message.replied_to_id,
    template: null,
  };
  const template = details?.template;
  if (template?.bizTemplateId !== undefined) {
    const row = store.templates.findByBizId(job.company_id, template.bizTemplateId);
    send.template = {
      name: row?.name ?? template.bizTemplateId,
      language: template.language ?? row?.language ?? 'en',
      parameters: template.substitutions ?? [],
    };
  }
  return { ...job, send };
}

/**
 * Resolves a job of `gateway.outbound` when the relay publishes it: a send job (resolveSendJob), a
 * delete job or a message action job, which take the channel's credentials and the chat the
 * messages are in.
 */
export function resolveOutboundJob(
  store: Store,
  job: SendJob | DeleteJob | MessageActionJob,
  urls: PublicUrls,
): ProviderSendJob | ProviderDeleteJob | ProviderMessageActionJob {
  if (job.kind === 'send_message') return resolveSendJob(store, job, urls);
  if (job.kind === 'message_action') return resolveMessageAction(store, job);
  const chat = chatOf(store, job);
  if (chat === undefined) return { ...job, request: null };
  return { ...job, request: { ...chat.target, external_ids: job.external_ids } };
}

/**
 * The channel, with its credentials, and the chat that a delete or action job's request goes to;
 * undefined when the channel or the conversation is gone.
 */
function chatOf(store: Store, job: { company_id: number; channel_id: number; conversation_id: number }) {
  const channel = store.channels.findLive(job.channel_id);
  const conversation = store.conversations.find(job.company_id, job.conversation_id);
  if (channel === undefined || conversation === undefined) return undefined;
  return {
    conversationId: conversation.id,
    target: {
      channel_id: channel.id,
      provider: channel.provider,
      settings: channel.settings,
      credentials: channel.credentials,
      chat_id: conversation.contact_external_id,
    },
  };
}

/** A message action job with what its connector needs; no request when the channel, conversation or message is gone. */
function resolveMessageAction(store: Store, job: MessageActionJob): ProviderMessageActionJob {
  const base = {
    job_id: job.job_id,
    kind: job.kind,
    company_id: job.company_id,
    channel_id: job.channel_id,
    conversation_id: job.conversation_id,
    message_id: job.message_id,
    external_id: job.external_id,
    created_at: job.created_at,
    action: job.action,
  };
  const chat = chatOf(store, job);
  const message = chat === undefined ? undefined : store.messages.find(chat.conversationId, job.message_id);
  if (chat === undefined || message === undefined) return { ...base, request: null };
  return {
    ...base,
    request: {
      ...chat.target,
      external_id: job.external_id,
      has_attachment: store.attachments.forMessages([message.id]).length > 0,
      action: actionOf(job),
    },
  };
}

/** The action a job carries, without the job's other fields. */
function actionOf(job: MessageActionJob): MessageAction {
  switch (job.action) {
    case 'react':
      return { action: 'react', emoji: job.emoji };
    case 'edit':
      return { action: 'edit', text: job.text };
    default:
      return { action: job.action };
  }
}
