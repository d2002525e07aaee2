import type { AttachmentRow } from '../store/resources/attachments.js';
import type { ContactRow } from '../store/resources/contacts.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import { presentAttachment, type AttachmentObject } from './attachment.js';
import { presentMessageEvent, type MessageEventObject } from './message-event.js';
import { presentMessage, type MessageObject } from './message.js';
import type { PublicUrls } from './public-urls.js';

/**
 * The presenters whose objects carry the gateway's addresses (attachments, and the messages and
 * message events that hold them), made once at start-up around the URL builder. The layers that
 * present such objects receive this, never the public URL itself.
 */
export interface Presenters {
  readonly urls: PublicUrls;
  attachment(row: AttachmentRow): AttachmentObject;
  message(row: MessageRow, attachments: readonly AttachmentRow[]): MessageObject;
  messageEvent(
    row: MessageRow,
    attachments: readonly AttachmentRow[],
    conversation: ConversationRow,
    author?: ContactRow,
  ): MessageEventObject;
}

export function createPresenters(urls: PublicUrls): Presenters {
  return {
    urls,
    attachment: (row) => presentAttachment(row, urls),
    message: (row, attachments) => presentMessage(row, attachments, urls),
    messageEvent: (row, attachments, conversation, author) =>
      presentMessageEvent(row, attachments, conversation, urls, author),
  };
}
