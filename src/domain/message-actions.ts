import { EDIT_PROVIDERS, REACTION_PROVIDERS } from '../../schemas/provider-capabilities.js';
import { Conflict, NotFound, ValidationFailed, WrongProvider } from '../errors/errors.js';
import type { MessageObject } from '../presenters/message.js';
import type { Presenters } from '../presenters/presenters.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { Store } from '../store/store.js';
import { assertChannelCanSend, queueOutboundJob } from './messaging.js';

/** Who a reaction the company sent through the gateway is from, in a message's `reactions`. */
export const COMPANY_REACTOR = 'company';

/** What the company asks the provider to do to one message, or to a chat (`read`). */
export type MessageAction =
  { action: 'react'; emoji: string } | { action: 'unreact' } | { action: 'edit'; text: string } | { action: 'read' };

/**
 * The job that carries a message action to the provider, on `gateway.outbound` (keyed by channel
 * id, behind the channel's sends). `external_id` is the provider's id of the message acted on (for
 * `read`, the latest incoming message: the chat is read up to it).
 */
export type MessageActionJob = {
  job_id: string;
  kind: 'message_action';
  company_id: number;
  channel_id: number;
  conversation_id: number;
  message_id: number;
  external_id: string;
  created_at: string;
} & MessageAction;

/** What a connector needs to carry out a message action, resolved by the core when it publishes the job. */
export interface MessageActionRequest {
  channel_id: number;
  provider: string;
  settings: Record<string, unknown>;
  /** The channel's secrets. Never logged, never part of an error text. */
  credentials: Record<string, unknown>;
  /** The chat the message is in (the conversation's contact at the provider). */
  chat_id: string;
  external_id: string;
  /** Whether the message carries an attachment (an edit then changes its caption). */
  has_attachment: boolean;
  action: MessageAction;
}

/** A message action job as it travels after the relay resolved it: null when the channel or message is gone by then. */
export interface ProviderMessageActionJob extends Omit<MessageActionJob, 'action' | 'emoji' | 'text'> {
  action: MessageAction['action'];
  request: MessageActionRequest | null;
}

/**
 * Asks the provider to add (`react`) or remove (`unreact`) the company's reaction to a message, or
 * to change the text of a message the company sent (`edit`). Refused with 422 `wrong_provider` when
 * the conversation's provider does not take the action from the gateway (the capability table),
 * 409 when its channel cannot send or the provider does not hold the message (no `external_id` yet,
 * or deleted), 404 for a message of another conversation, 422 for an edit of a message the company
 * did not send. Queues the job in the caller's transaction and changes nothing else: the provider's answer
 * comes back as a `message.update` (src/domain/message-changes.ts). Answers the message as it is.
 */
export function requestMessageAction(
  store: Store,
  conversation: ConversationRow,
  messageId: number,
  action: Exclude<MessageAction, { action: 'read' }>,
  presenters: Presenters,
  now = new Date(),
): MessageObject {
  assertProviderTakes(conversation.provider, action.action);
  assertChannelCanSend(conversation);
  const message = store.messages.find(conversation.id, messageId);
  if (message === undefined) throw new NotFound(`Message ${messageId} was not found.`);
  const externalId = actionableExternalId(message, action.action);
  queueMessageAction(store, conversation, message.id, externalId, action, now);
  return presenters.message(message, store.attachments.forMessages([message.id]));
}

/** Queues a message action job for the conversation's channel (inside the caller's transaction). */
export function queueMessageAction(
  store: Store,
  conversation: Pick<ConversationRow, 'id' | 'company_id' | 'channel_id'>,
  messageId: number,
  externalId: string,
  action: MessageAction,
  now: Date,
): MessageActionJob {
  return queueOutboundJob(
    store,
    {
      kind: 'message_action',
      company_id: conversation.company_id,
      channel_id: conversation.channel_id,
      conversation_id: conversation.id,
      message_id: messageId,
      external_id: externalId,
      created_at: now.toISOString(),
      ...action,
    } satisfies Omit<MessageActionJob, 'job_id'>,
    now,
  );
}

const OPERATIONS = {
  react: { providers: REACTION_PROVIDERS, what: 'reactions' },
  unreact: { providers: REACTION_PROVIDERS, what: 'reactions' },
  edit: { providers: EDIT_PROVIDERS, what: 'edits' },
} as const;

function assertProviderTakes(provider: string, action: keyof typeof OPERATIONS): void {
  const { providers, what } = OPERATIONS[action];
  if ((providers as readonly string[]).includes(provider)) return;
  throw new WrongProvider(
    `${provider} does not take ${what} from the gateway; ${what} go to ${providers.join(', ')} (GET /api/p2/providers).`,
  );
}

/**
 * The provider's id of a message the action may touch: 409 for a message deleted or not at the
 * provider yet (its state may still change), 422 for an edit of an incoming message.
 */
function actionableExternalId(message: MessageRow, action: keyof typeof OPERATIONS): string {
  if (message.deleted === 1) throw new Conflict(`Message ${message.id} is deleted.`);
  if (message.external_id === null)
    throw new Conflict(`Message ${message.id} has not reached the provider yet; try again once it has an external_id.`);
  if (action === 'edit' && message.income === 1)
    throw ValidationFailed.field(
      'text',
      `message ${message.id} is incoming; only messages the company sent are edited`,
    );
  return message.external_id;
}
