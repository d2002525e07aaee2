import type { FromSchema } from 'json-schema-to-ts';
import type { messageObject } from '../../schemas/objects/message.js';
import { toIso } from '../lib/time.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { MessageRow } from '../store/resources/messages.js';
import { presentAttachment } from './attachment.js';
import type { PublicUrls } from './public-urls.js';

/** The contract's Message (v2), as schemas/objects/message.ts describes it (`details` is any JSON, or null). */
export type MessageObject = FromSchema<typeof messageObject>;

/**
 * The contract's Message (v2). `delivery` and `deleted` are always present (the contract shows them
 * in the send answer; a stable shape is easier for clients). `created_at` keeps milliseconds.
 * `attachments` are the message's own.
 */
export function presentMessage(
  row: MessageRow,
  attachments: readonly AttachmentRow[],
  urls: PublicUrls,
): MessageObject {
  return {
    id: row.id,
    external_id: row.external_id,
    company_id: row.company_id,
    conversation_id: row.conversation_id,
    contact_id: row.contact_id,
    replied_to_id: row.replied_to_id,
    created_at: toIso(row.created_at),
    external_created_at: toIso(row.external_created_at),
    income: row.income === 1,
    status: row.status,
    message: row.text,
    reactions: JSON.parse(row.reactions) as unknown[],
    details: row.details === null ? null : (JSON.parse(row.details) as unknown),
    delivery: row.delivery === 1,
    deleted: row.deleted === 1,
    attachments: attachments.map((a) => presentAttachment(a, urls)),
  };
}
