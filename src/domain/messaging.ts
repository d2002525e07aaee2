import { randomUUID } from 'node:crypto';
import { GROUP_SEND_PROVIDERS, type SendKind } from '../../schemas/provider-capabilities.js';
import { presentConversation } from '../presenters/conversation.js';
import type { MessageObject } from '../presenters/message.js';
import { Conflict, ValidationFailed, WrongProvider } from '../errors/errors.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { ConversationChanges, ConversationRow } from '../store/resources/conversations.js';
import type { Store } from '../store/store.js';
import { recordEvent } from './events.js';
import { recordMessageEvent } from './message-events.js';
import { assertAttachmentFits } from './provider-rules.js';
import type { Presenters } from '../presenters/presenters.js';

/** What a company sends into a conversation. */
export interface OutgoingMessage {
  text?: string;
  attachmentId?: number;
  repliedToId?: string;
  sendToCrm: boolean;
  /** A business template, when the message is one; `language` overrides the template's own. */
  template?: { bizTemplateId: string; substitutions: string[]; language?: string };
  /** Sent through the v1 write-first endpoint: the job's result is also a v1 job webhook. */
  v1Job?: boolean;
}

/** The job the provider sender consumes from `gateway.outbound` (keyed by channel id). */
export interface SendJob {
  job_id: string;
  kind: 'send_message';
  company_id: number;
  channel_id: number;
  conversation_id: number;
  message_id: number;
  created_at: string;
  /** The job of a v1 write-first request: its result is also the v1 `job.executed` webhook. */
  v1_job?: boolean;
}

/** What a sender needs to call the provider, resolved by the core when it publishes the job. */
export interface SendRequest {
  provider: string;
  /** The channel's secrets (tokens). Never logged, never part of an error text. */
  credentials: Record<string, unknown>;
  /** The channel's non-secret settings (vendor ids, phone). */
  settings: Record<string, unknown>;
  recipient: { external_id: string; phone: string | null };
  text: string | null;
  attachment: { url: string; mime_type: string; file_name: string; kind: MediaKindOut } | null;
  /** The provider's id of the message replied to. */
  reply_to: string | null;
  template: { name: string; language: string; parameters: string[] } | null;
}

/** The kinds a sent attachment goes to a provider as. */
export type MediaKindOut = SendKind;

/**
 * A send job as it travels on `gateway.outbound` after the relay resolved it: the job, what to
 * send (null when the message or its channel is gone by then, with the reason), and whether the
 * job came from the v1 write-first endpoint (its result is also a v1 job webhook).
 */
export interface ProviderSendJob extends SendJob {
  v1_job?: boolean;
  send: SendRequest | null;
  gone_reason?: string;
}

/** A channel answers sends only while enabled; say clearly why not otherwise. */
export function assertChannelCanSend(
  conversation: Pick<ConversationRow, 'channel_id' | 'provider' | 'channel_state' | 'channel_deleted_at'>,
): void {
  const channel = `${conversation.provider} channel ${conversation.channel_id}`;
  if (conversation.channel_deleted_at !== null)
    throw new Conflict(`The ${channel} has been deleted; messages cannot be sent through it.`);
  if (conversation.channel_state !== 'enabled') {
    throw new Conflict(`The ${channel} is ${conversation.channel_state}; enable it before sending messages.`);
  }
}

/**
 * A group conversation takes messages only through the providers whose groups the gateway sends
 * into (schemas/provider-capabilities.ts); sending into another's is a 422 naming both.
 */
export function assertGroupSendable(conversation: Pick<ConversationRow, 'provider' | 'contact_is_group'>): void {
  if (conversation.contact_is_group !== 1) return;
  if ((GROUP_SEND_PROVIDERS as readonly string[]).includes(conversation.provider)) return;
  throw new WrongProvider(
    `Messages cannot be sent into ${conversation.provider} group conversations; only into ${GROUP_SEND_PROVIDERS.join(', ')} groups (GET /api/p2/providers).`,
  );
}

/**
 * Stores an outgoing message and, in the same transaction, the send job for the provider, the
 * message `create` event (unless send_to_crm is false) and the conversation `update` event when
 * its replied state changes. The caller runs it inside store.transaction.
 */
export function storeOutgoing(
  store: Store,
  conversation: ConversationRow,
  outgoing: OutgoingMessage,
  presenters: Presenters,
  now = new Date(),
): MessageObject {
  return storeOutgoingJob(store, conversation, outgoing, presenters, now).message;
}

/** storeOutgoing, also answering the id of the send job (the v1 write-first answer names it). */
export function storeOutgoingJob(
  store: Store,
  conversation: ConversationRow,
  outgoing: OutgoingMessage,
  presenters: Presenters,
  now = new Date(),
): { message: MessageObject; jobId: string } {
  assertChannelCanSend(conversation);
  assertGroupSendable(conversation);
  const attachment =
    outgoing.attachmentId === undefined
      ? undefined
      : usableAttachment(store, conversation.company_id, outgoing.attachmentId);
  if (attachment !== undefined) assertAttachmentFits(conversation.provider, attachment, 'attachment_ids/0');
  if (
    outgoing.repliedToId !== undefined &&
    store.messages.findByExternalId(conversation.id, outgoing.repliedToId) === undefined
  ) {
    throw ValidationFailed.field(
      'replied_to_id',
      `replied_to_id ${outgoing.repliedToId} is not the external id of a message of this conversation`,
    );
  }

  const message = store.messages.insert(
    {
      companyId: conversation.company_id,
      channelId: conversation.channel_id,
      conversationId: conversation.id,
      contactId: conversation.contact_id,
      externalId: null,
      repliedToId: outgoing.repliedToId ?? null,
      income: false,
      // The documented status of an accepted outgoing message (docs/decisions.md, "Hosted-service compatibility").
      status: 'sent',
      text: outgoing.text ?? null,
      details: outgoing.template === undefined ? null : { template: outgoing.template },
      sendToCrm: outgoing.sendToCrm,
    },
    now.getTime(),
  );
  const attachments = attachment === undefined ? [] : [{ ...attachment, message_id: message.id }];
  if (attachment !== undefined) store.attachments.attachToMessage(attachment.id, message.id);

  const job = queueOutboundJob(
    store,
    {
      kind: 'send_message',
      company_id: message.company_id,
      channel_id: message.channel_id,
      conversation_id: message.conversation_id,
      message_id: message.id,
      created_at: now.toISOString(),
      ...(outgoing.v1Job === true ? { v1_job: true } : {}),
    } satisfies Omit<SendJob, 'job_id'>,
    now,
  );

  const updated = store.conversations.change(
    conversation,
    { last_message_id: message.id, replied_state: 'replied' },
    now.getTime(),
  );
  if (outgoing.sendToCrm) recordMessageEvent(store, 'create', message, attachments, presenters, now, updated);
  announceConversationChange(store, conversation, updated, now);
  return { message: presenters.message(message, attachments), jobId: job.job_id };
}

/**
 * Queues a job for the channel's provider on `gateway.outbound` (keyed by channel: it goes behind
 * the channel's earlier jobs), under a new job id that is also the provider's idempotency key.
 * Call it inside the transaction of the change the job carries out.
 */
export function queueOutboundJob<J extends { channel_id: number }>(
  store: Store,
  fields: J,
  now: Date,
): J & { job_id: string } {
  const job = { job_id: `job_${randomUUID().replaceAll('-', '')}`, ...fields };
  store.outbox.append(
    { stream: 'gateway.outbound', key: String(job.channel_id), messageId: job.job_id, payload: job },
    now.getTime(),
  );
  return job;
}

/**
 * Applies changes to a conversation and writes its `update` event when a state, the assignee, the
 * note, the unread count or the sender changed (a new last message alone is not an event). Answers the conversation as it is now.
 */
export function changeConversation(
  store: Store,
  conversation: ConversationRow,
  changes: ConversationChanges,
  now = new Date(),
): ConversationRow {
  const updated = store.conversations.change(conversation, changes, now.getTime());
  announceConversationChange(store, conversation, updated, now);
  return updated;
}

/** Writes the conversation's `update` event when a state, the assignee, the note or the unread count changed between `before` and `after`. */
function announceConversationChange(store: Store, before: ConversationRow, after: ConversationRow, now: Date): void {
  const visible =
    after.operational_state !== before.operational_state ||
    after.replied_state !== before.replied_state ||
    after.assignee_id !== before.assignee_id ||
    after.note !== before.note ||
    after.unread_count !== before.unread_count;
  if (visible) recordEvent(store.outbox, after.company_id, 'conversation', 'update', presentConversation(after), now);
}

function usableAttachment(store: Store, companyId: number, id: number): AttachmentRow {
  const attachment = store.attachments.findForCompany(companyId, id);
  // Another company's attachment answers exactly like a missing one.
  if (attachment === undefined) throw ValidationFailed.field('attachment_ids/0', `attachment ${id} was not found`);
  if (attachment.message_id !== null)
    throw ValidationFailed.field('attachment_ids/0', `attachment ${id} already belongs to a message`);
  return attachment;
}
