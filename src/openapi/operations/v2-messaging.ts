import { attachmentObject } from '../../../schemas/objects/attachment.js';
import { conversationObject } from '../../../schemas/objects/conversation.js';
import { messageObject } from '../../../schemas/objects/message.js';
import { templateObject } from '../../../schemas/objects/template.js';
import { EDIT_PROVIDERS, REACTION_PROVIDERS, READ_RECEIPT_PROVIDERS } from '../../../schemas/provider-capabilities.js';
import { attachmentUploadBody } from '../../../schemas/v2/attachments.js';
import { companyQuery, conversationListQuery, conversationUpdateBody } from '../../../schemas/v2/conversations.js';
import { messageEditBody, reactionAddBody } from '../../../schemas/v2/message-actions.js';
import { messageDeleteBody, messageListQuery, messageSendBody, writeFirstBody } from '../../../schemas/v2/messages.js';
import { templateListQuery } from '../../../schemas/v2/templates.js';
import type { Operation } from '../document.js';
import { v2List, wrap } from './shared-schemas.js';

/** The v2 messaging routes under /api/p2: conversations, messages, attachments and business templates. */
export const v2MessagingOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/p2/conversations',
    tag: 'v2 conversations',
    summary: "List a company's conversations",
    errors: [429],
    input: conversationListQuery,
    success: { status: 200, schema: v2List('conversations', conversationObject) },
  },
  {
    method: 'get',
    path: '/api/p2/conversations/:id',
    tag: 'v2 conversations',
    summary: 'Show a conversation',
    errors: [429],
    input: companyQuery,
    success: { status: 200, schema: wrap('conversation', conversationObject) },
  },
  {
    method: 'put',
    path: '/api/p2/conversations/:id',
    tag: 'v2 conversations',
    summary: 'Change archive state, replied state or assignee',
    input: conversationUpdateBody,
    success: { status: 200, schema: wrap('conversation', conversationObject) },
  },
  {
    method: 'get',
    path: '/api/p2/conversations/:id/messages',
    tag: 'v2 messages',
    summary: "List a conversation's messages by external_created_at",
    errors: [429],
    input: messageListQuery,
    success: { status: 200, schema: v2List('messages', messageObject) },
  },
  {
    method: 'get',
    path: '/api/p2/conversations/:id/messages/:messageId',
    tag: 'v2 messages',
    summary: 'Show a message',
    errors: [429],
    input: companyQuery,
    success: { status: 200, schema: wrap('message', messageObject) },
  },
  {
    method: 'post',
    path: '/api/p2/conversations/:id/messages',
    tag: 'v2 messages',
    summary:
      'Send a message into a conversation; into a group conversation only through the providers whose groups the gateway sends into (GET /api/p2/providers), others answer 422 wrong_provider',
    errors: [409, 429],
    input: messageSendBody,
    success: { status: 201, schema: wrap('message', messageObject) },
  },
  {
    method: 'delete',
    path: '/api/p2/conversations/:id/messages',
    tag: 'v2 messages',
    summary:
      'Delete messages for everyone (chat_a, chat_b_personal, chat_d; up to 100 ids, each at the provider and at most 48 hours old); other providers answer 422 wrong_provider',
    errors: [409],
    input: messageDeleteBody,
    success: { status: 200, schema: wrap('messages', { type: 'array', items: messageObject }) },
  },
  {
    method: 'post',
    path: '/api/p2/conversations/:id/messages/:messageId/reactions',
    tag: 'v2 messages',
    summary: `Add the company's reaction to a message at the provider (${REACTION_PROVIDERS.join(', ')}; others answer 422 wrong_provider); 202, the result comes as message.update`,
    errors: [409],
    input: reactionAddBody,
    success: { status: 202, schema: wrap('message', messageObject) },
  },
  {
    method: 'delete',
    path: '/api/p2/conversations/:id/messages/:messageId/reactions',
    tag: 'v2 messages',
    summary: "Remove the company's reaction to a message at the provider; 202, the result comes as message.update",
    errors: [409],
    input: companyQuery,
    success: { status: 202, schema: wrap('message', messageObject) },
  },
  {
    method: 'patch',
    path: '/api/p2/conversations/:id/messages/:messageId',
    tag: 'v2 messages',
    summary: `Edit the text of a message the company sent (${EDIT_PROVIDERS.join(', ')}; others answer 422 wrong_provider); 202, the result comes as message.update`,
    errors: [409],
    input: messageEditBody,
    success: { status: 202, schema: wrap('message', messageObject) },
  },
  {
    method: 'post',
    path: '/api/p2/conversations/:id/read',
    tag: 'v2 conversations',
    summary: `Mark a conversation read: unread_count 0 (conversation.update) and a read receipt to ${READ_RECEIPT_PROVIDERS.join(', ')} unless the channel has do_not_mark_as_read`,
    input: companyQuery,
    success: { status: 200, schema: wrap('conversation', conversationObject) },
  },
  {
    method: 'post',
    path: '/api/p2/messages',
    tag: 'v2 messages',
    summary: 'Write first to a recipient',
    errors: [409, 429],
    input: writeFirstBody,
    success: { status: 201, schema: wrap('message', messageObject) },
  },
  {
    method: 'post',
    path: '/api/p2/companies/:companyId/attachments',
    tag: 'v2 attachments',
    summary: 'Upload a file to attach to a message (token in header or query)',
    errors: [503, 429],
    multipart: { field: 'file' },
    success: { status: 201, schema: wrap('attachment', attachmentObject) },
  },
  {
    method: 'post',
    path: '/api/p2/attachments',
    tag: 'v2 attachments',
    summary:
      'Upload a file (multipart file) or have it downloaded (file_url), the company in the body; 5 a second and 30 a minute',
    errors: [429, 503],
    input: attachmentUploadBody,
    multipart: { field: 'file', optional: true },
    success: { status: 201, schema: wrap('attachment', attachmentObject) },
  },
  {
    method: 'get',
    path: '/api/p2/biz_templates',
    tag: 'v2 templates',
    summary: 'List business message templates',
    errors: [429],
    input: templateListQuery,
    success: { status: 200, schema: v2List('biz_templates', templateObject) },
  },
];
