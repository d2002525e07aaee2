import type { FromSchema } from 'json-schema-to-ts';
import type { messageEventObject } from '../../schemas/objects/message-event.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { ContactRow } from '../store/resources/contacts.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import { presentConversation } from './conversation.js';
import { presentMessage } from './message.js';
import type { PublicUrls } from './public-urls.js';

/** The `object` of message events, as schemas/objects/message-event.ts describes it. */
export type MessageEventObject = FromSchema<typeof messageEventObject>;

/**
 * A message as its events show it: the Message object plus its `contact` and its `conversation`
 * (the conversation as it is after the change the event reports). The contact is the
 * conversation's (in a group, `author`: the member who wrote it): with the provider's ids for an
 * incoming message, with the gateway's own id (`internal_id`) and no provider id for an outgoing one.
 */
export function presentMessageEvent(
  row: MessageRow,
  attachments: readonly AttachmentRow[],
  conversation: ConversationRow,
  urls: PublicUrls,
  author?: ContactRow,
): MessageEventObject {
  // Literals written out, no `{ ...spread, added }`: V8 (Node 20) gives every object made that way a
  // hidden class of its own, and this runs for every message event (docs/decisions.md, "Object shapes").
  const { contact_id: id, contact_name: name, contact_avatar_url: avatar_url, contact_phone: phone } = conversation;
  const contact =
    row.income === 1 && author !== undefined
      ? {
          id: author.id,
          name: author.name,
          avatar_url: author.avatar_url,
          phone: author.phone,
          external_id: author.external_id,
          external_public_id: author.external_public_id,
        }
      : row.income === 1
        ? {
            id,
            name,
            avatar_url,
            phone,
            external_id: conversation.contact_external_id,
            external_public_id: conversation.contact_external_public_id,
          }
        : { id, name, avatar_url, phone, internal_id: id };
  return Object.assign(presentMessage(row, attachments, urls), {
    contact,
    conversation: presentConversation(conversation),
  });
}
