import { DELETE_PROVIDERS } from '../../schemas/provider-capabilities.js';
import { ValidationFailed, WrongProvider, type FieldProblem } from '../errors/errors.js';
import type { MessageObject } from '../presenters/message.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { Store } from '../store/store.js';
import { assertChannelCanSend, queueOutboundJob } from './messaging.js';
import { recordMessageEvent } from './message-events.js';
import type { Presenters } from '../presenters/presenters.js';

/** How old a message may be to be deleted for everyone (the strictest of the providers that delete). */
export const DELETE_MAX_AGE_MS = 48 * 3_600_000;

/** The job that asks the provider to delete messages, on `gateway.outbound` (keyed by channel id, behind its sends). */
export interface DeleteJob {
  job_id: string;
  kind: 'delete_messages';
  company_id: number;
  channel_id: number;
  conversation_id: number;
  message_ids: number[];
  /** The provider's ids of those messages. */
  external_ids: string[];
  created_at: string;
}

/** Messages to delete at the provider (for everyone), named by their provider ids. */
export interface DeleteRequest {
  channel_id: number;
  provider: string;
  settings: Record<string, unknown>;
  /** The channel's secrets. Never logged, never part of an error text. */
  credentials: Record<string, unknown>;
  /** The chat the messages are in (the conversation's contact at the provider). */
  chat_id: string;
  external_ids: string[];
}

/** A delete job as it travels after the relay resolved it: null when the channel is gone by then. */
export interface ProviderDeleteJob extends DeleteJob {
  request: DeleteRequest | null;
}

/**
 * Deletes messages of a conversation (the hosted service's delete-message page): each must be a
 * message of that conversation the provider holds (an `external_id`), at most DELETE_MAX_AGE_MS
 * old; every refused id is named in one 422 and nothing changes. In ONE transaction: the messages
 * marked `deleted`, a `message.update` each, and the job that deletes them at the provider.
 * Messages deleted already are answered as they are and not deleted again. The caller runs it
 * inside store.transaction.
 */
export function deleteMessages(
  store: Store,
  conversation: ConversationRow,
  ids: readonly number[],
  presenters: Presenters,
  now = new Date(),
): MessageObject[] {
  if (!(DELETE_PROVIDERS as readonly string[]).includes(conversation.provider)) {
    throw new WrongProvider(
      `Messages of ${conversation.provider} conversations cannot be deleted; only ${DELETE_PROVIDERS.join(', ')} messages can.`,
    );
  }
  assertChannelCanSend(conversation);
  const problems: FieldProblem[] = [];
  const found: MessageRow[] = [];
  ids.forEach((id, index) => {
    const message = store.messages.find(conversation.id, id);
    const field = `message_ids/${index}`;
    if (message === undefined)
      problems.push({ field, detail: `message ${id} is not a message of conversation ${conversation.id}` });
    else if (message.deleted === 1) found.push(message);
    else if (message.external_id === null)
      problems.push({ field, detail: `message ${id} has not reached the provider yet, so it cannot be deleted there` });
    else if (now.getTime() - message.created_at > DELETE_MAX_AGE_MS)
      problems.push({
        field,
        detail: `message ${id} is older than ${DELETE_MAX_AGE_MS / 3_600_000} hours and can no longer be deleted`,
      });
    else found.push(message);
  });
  if (problems.length > 0) throw new ValidationFailed(problems);

  const deleted: MessageRow[] = [];
  const answered = found.map((message) => {
    const marked = message.deleted === 1 ? message : store.messages.markDeleted(message.id);
    if (marked === undefined || marked === message) return message;
    deleted.push(marked);
    // A message sent with send_to_crm false was never announced: its deletion is not either.
    if (marked.send_to_crm === 1)
      recordMessageEvent(
        store,
        'update',
        marked,
        store.attachments.forMessages([marked.id]),
        presenters,
        now,
        conversation,
      );
    return marked;
  });
  if (deleted.length > 0) {
    queueOutboundJob(
      store,
      {
        kind: 'delete_messages',
        company_id: conversation.company_id,
        channel_id: conversation.channel_id,
        conversation_id: conversation.id,
        message_ids: deleted.map((m) => m.id),
        external_ids: deleted.map((m) => m.external_id!),
        created_at: now.toISOString(),
      } satisfies Omit<DeleteJob, 'job_id'>,
      now,
    );
  }
  return answered.map((m) => presenters.message(m, store.attachments.forMessages([m.id])));
}
