import { channelUpdateBodies } from '../../../schemas/v1/channels.js';
import { companyCreateBody, companyUpdateBody } from '../../../schemas/v1/companies.js';
import {
  conversationAssignBody,
  conversationNoteBody,
  v1AssignAnswer,
  v1NoteAnswer,
} from '../../../schemas/v1/conversations.js';
import {
  confirmChatBPersonalBody,
  confirmSocialCBody,
  enablePageBody,
  requestCodeBody,
  userExistsQuery,
  v1ConversationBody,
} from '../../../schemas/v1/flows.js';
import { v1PageQuery } from '../../../schemas/v1/paging.js';
import {
  channelItem,
  companyObject,
  v1Deleted,
  v1JobAnswer,
  v1List,
  v1UserExistsAnswer,
  v1Written,
} from '../../../schemas/v1/responses.js';
import type { Operation } from '../document.js';
import { channelCreate } from './shared-schemas.js';

const channelUpdate = {
  description: 'The parameters of the channel provider (token, or login and password, or sync_messages_from).',
  oneOf: Object.values(channelUpdateBodies),
};

/** The v1 API under /p1: companies, their channels and the channels' conversations and flows. */
export const v1Operations: Operation[] = [
  {
    method: 'get',
    path: '/p1/companies',
    tag: 'v1 companies',
    summary: 'List companies',
    input: v1PageQuery,
    success: { status: 200, schema: v1List('companies', companyObject) },
  },
  {
    method: 'post',
    path: '/p1/companies',
    tag: 'v1 companies',
    summary: 'Create a company',
    input: companyCreateBody,
    success: { status: 201, schema: v1Written('created') },
  },
  {
    method: 'put',
    path: '/p1/companies/:id',
    tag: 'v1 companies',
    summary: 'Update a company',
    input: companyUpdateBody,
    success: { status: 200, schema: v1Written('updated') },
  },
  {
    method: 'get',
    path: '/p1/companies/:companyId/channels',
    tag: 'v1 channels',
    summary: 'List channels',
    input: v1PageQuery,
    success: { status: 200, schema: v1List('channels', channelItem) },
  },
  {
    method: 'post',
    path: '/p1/companies/:companyId/channels',
    tag: 'v1 channels',
    summary: 'Create a channel (one per provider)',
    errors: [409],
    input: channelCreate,
    success: { status: 201, schema: v1Written('created') },
  },
  {
    method: 'put',
    path: '/p1/companies/:companyId/channels/:id',
    tag: 'v1 channels',
    summary: "Update a channel's credentials",
    input: channelUpdate,
    success: { status: 200, schema: v1Written('updated') },
  },
  {
    method: 'delete',
    path: '/p1/companies/:companyId/channels/:id',
    tag: 'v1 channels',
    summary: 'Delete (disable) a channel',
    success: { status: 200, schema: v1Deleted },
  },
  {
    method: 'put',
    path: '/p1/companies/:companyId/conversations/:id/note',
    tag: 'v1 conversations',
    summary: "Set a conversation's note (an empty note removes it); a change writes conversation.update with the note",
    input: conversationNoteBody,
    success: { status: 200, schema: v1NoteAnswer },
  },
  {
    method: 'put',
    path: '/p1/companies/:companyId/conversations/:id/assign',
    tag: 'v1 conversations',
    summary: "Set a conversation's assignee (a user id; absent or null unassigns); a change writes conversation.update",
    input: conversationAssignBody,
    success: { status: 200, schema: v1AssignAnswer },
  },
  {
    method: 'post',
    path: '/p1/companies/:companyId/channels/:id/request_code',
    tag: 'v1 channels',
    summary: 'Request a confirmation code (chat_a, chat_b_personal, social_c)',
    errors: [409, 502, 503],
    input: requestCodeBody,
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/p1/companies/:companyId/channels/:id/confirm',
    tag: 'v1 channels',
    summary:
      'Confirm a channel with a code or password (chat_b_personal: confirmation_type, code, password; social_c: confirmation_code, confirmation_type, confirmation_variant)',
    errors: [409, 502, 503],
    input: { oneOf: [confirmChatBPersonalBody, confirmSocialCBody] },
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/p1/companies/:companyId/channels/:id/conversations',
    tag: 'v1 channels',
    summary:
      'Write first (chat_a: message; chat_a_business: template); answers the delivery job, whose result is the job.executed webhook',
    errors: [409, 502, 503],
    input: v1ConversationBody,
    success: { status: 201, schema: v1JobAnswer },
  },
  {
    method: 'get',
    path: '/p1/companies/:companyId/channels/:id/jobs/:jobId',
    tag: 'v1 channels',
    summary: 'Show a write-first delivery job (poll it until delivered or not_delivered)',
    success: { status: 200, schema: v1JobAnswer },
  },
  {
    method: 'get',
    path: '/p1/companies/:companyId/channels/:id/user_exists',
    tag: 'v1 channels',
    summary: 'Whether a phone number has an account at the provider (chat_a)',
    errors: [409, 502, 503],
    input: userExistsQuery,
    success: { status: 200, schema: v1UserExistsAnswer },
  },
  {
    method: 'get',
    path: '/p1/companies/:companyId/channels/:id/enable_page_instagram',
    tag: 'v1 channels',
    summary: 'Choose the business page (social_c_business, social_c)',
    errors: [409, 502, 503],
    input: enablePageBody,
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/p1/companies/:companyId/channels/:id/enable_page_instagram',
    tag: 'v1 channels',
    summary: 'Choose the business page (social_c_business, social_c)',
    errors: [409, 502, 503],
    input: enablePageBody,
    success: { status: 200 },
  },
];
