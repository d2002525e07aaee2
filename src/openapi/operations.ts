import {
  adminBulkReplayBody,
  adminDeliveryListQuery,
  adminEndpointDisableBody,
} from '../../schemas/admin/deliveries.js';
import { adminTokenListQuery } from '../../schemas/admin/tokens.js';
import { attachmentObject } from '../../schemas/objects/attachment.js';
import { conversationObject } from '../../schemas/objects/conversation.js';
import { messageObject } from '../../schemas/objects/message.js';
import { templateObject } from '../../schemas/objects/template.js';
import { channelCreateBodies, channelProviderBody, channelUpdateBodies } from '../../schemas/v1/channels.js';
import { companyCreateBody, companyUpdateBody } from '../../schemas/v1/companies.js';
import {
  conversationAssignBody,
  conversationNoteBody,
  v1AssignAnswer,
  v1NoteAnswer,
} from '../../schemas/v1/conversations.js';
import { v1PageQuery } from '../../schemas/v1/paging.js';
import {
  channelItem,
  companyObject,
  v1Deleted,
  v1JobAnswer,
  v1List,
  v1UserExistsAnswer,
  v1Written,
} from '../../schemas/v1/responses.js';
import { companyQuery, conversationListQuery, conversationUpdateBody } from '../../schemas/v2/conversations.js';
import { messageDeleteBody, messageListQuery, messageSendBody, writeFirstBody } from '../../schemas/v2/messages.js';
import { messageEditBody, reactionAddBody } from '../../schemas/v2/message-actions.js';
import { EDIT_PROVIDERS, REACTION_PROVIDERS, READ_RECEIPT_PROVIDERS } from '../../schemas/provider-capabilities.js';
import {
  accountAuthListQuery,
  authActionBody,
  authEnableBody,
  authListQuery,
  authListResponse,
  authResponse,
} from '../../schemas/v2/auths.js';
import { templateListQuery } from '../../schemas/v2/templates.js';
import { contactEraseBody, contactEraseResponse } from '../../schemas/v2/contacts.js';
import {
  companySettingsBody,
  companySettingsQuery,
  companySettingsResponse,
} from '../../schemas/v2/company-settings.js';
import {
  webhookActionBody,
  webhookCreateBody,
  webhookListQuery,
  webhookListResponse,
  webhookResponse,
  webhookTestResponse,
  webhookUpdateBody,
} from '../../schemas/v2/webhooks.js';
import { attachmentUploadBody } from '../../schemas/v2/attachments.js';
import {
  confirmChatBPersonalBody,
  confirmSocialCBody,
  enablePageBody,
  requestCodeBody,
  userExistsQuery,
  v1ConversationBody,
} from '../../schemas/v1/flows.js';
import { eventTypeListResponse } from '../../schemas/v2/event-types.js';
import { providerListResponse } from '../../schemas/v2/providers.js';
import { sandboxMessageBody } from '../../schemas/admin/connectors.js';
import { cloudHandshakeQuery } from '../../schemas/callbacks/cloud.js';
import { oauthRedirectQuery } from '../../schemas/callbacks/oauth.js';
import type { Operation } from './document.js';

/** `{<name>: object}` */
const wrap = (name: string, schema: object) => ({ type: 'object', required: [name], properties: { [name]: schema } });
/** The v2 list envelope `{<plural>: [...], meta: {page, entries_count, per_page}}`. */
const v2List = (plural: string, item: object) => ({
  type: 'object',
  required: [plural, 'meta'],
  properties: {
    [plural]: { type: 'array', items: item },
    meta: {
      type: 'object',
      required: ['page', 'entries_count', 'per_page'],
      properties: { page: { type: 'integer' }, entries_count: { type: 'integer' }, per_page: { type: 'integer' } },
    },
  },
});

/** Channel create: the provider picks one of the variants of the contract. */
const channelCreate = {
  oneOf: Object.entries(channelCreateBodies).map(([provider, schema]) => ({
    ...schema,
    required: ['provider', ...((schema as { required?: string[] }).required ?? [])],
    properties: { provider: { const: provider }, ...(schema as { properties?: object }).properties },
  })),
  discriminator: { propertyName: 'provider' },
  description: `provider: ${channelProviderBody.properties.provider.enum.join(', ')}`,
};
const channelUpdate = {
  description: 'The parameters of the channel provider (token, or login and password, or sync_messages_from).',
  oneOf: Object.values(channelUpdateBodies),
};

const v1: Operation[] = [
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

const v2: Operation[] = [
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

const auths = '/api/p2/companies/:companyId/auths';
const authOps: Operation[] = [
  {
    method: 'get',
    path: '/api/p2/auths',
    tag: 'v2 auths',
    summary: "List the auths of all the account's companies",
    input: accountAuthListQuery,
    success: { status: 200, schema: authListResponse },
  },
  {
    method: 'get',
    path: auths,
    tag: 'v2 auths',
    summary: "List a company's auths",
    input: authListQuery,
    success: { status: 200, schema: authListResponse },
  },
  {
    method: 'post',
    path: auths,
    tag: 'v2 auths',
    summary: 'Create an auth (the v1 channel variants, JSON; phone_number is phone)',
    errors: [409],
    input: channelCreate,
    success: { status: 201, schema: authResponse },
  },
  {
    method: 'get',
    path: `${auths}/:id`,
    tag: 'v2 auths',
    summary: 'Show an auth',
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  {
    method: 'delete',
    path: `${auths}/:id`,
    tag: 'v2 auths',
    summary: 'Delete an auth',
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  {
    method: 'post',
    path: `${auths}/:id/confirm`,
    tag: 'v2 auths',
    summary: 'Start confirming an auth (QR, code or OAuth)',
    errors: [409, 502, 503],
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  ...(['put', 'patch'] as const).flatMap((method): Operation[] => [
    {
      method,
      path: `${auths}/:id/enable`,
      tag: 'v2 auths',
      summary: 'Enable an auth (with the code when the provider sent one)',
      errors: [409, 502, 503],
      input: authEnableBody,
      success: { status: 200, schema: authResponse },
    },
    {
      method,
      path: `${auths}/:id/disable`,
      tag: 'v2 auths',
      summary: 'Disable an auth',
      errors: [409],
      input: authActionBody,
      success: { status: 200, schema: authResponse },
    },
  ]),
];

const webhooks = '/api/p2/companies/:companyId/webhooks';
const webhookOps: Operation[] = [
  {
    method: 'get',
    path: webhooks,
    tag: 'v2 webhooks',
    summary: "List a company's webhook endpoints (the v1 webhook_url is one), a page at a time",
    input: webhookListQuery,
    success: { status: 200, schema: webhookListResponse },
  },
  {
    method: 'post',
    path: webhooks,
    tag: 'v2 webhooks',
    summary: 'Add a webhook endpoint (at most 5), inactive unless active is true; the secret is shown once',
    input: webhookCreateBody,
    success: { status: 201, schema: webhookResponse },
  },
  {
    method: 'get',
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary: 'Show a webhook endpoint',
    input: webhookActionBody,
    success: { status: 200, schema: webhookResponse },
  },
  ...(['put', 'patch'] as const).map((method): Operation => ({
    method,
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary:
      'Change url, event types or active flag; activating it, or moving an active one, sends the test POST first (422 unless it answers 2xx)',
    errors: [409],
    input: webhookUpdateBody,
    success: { status: 200, schema: webhookResponse },
  })),
  {
    method: 'delete',
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary: 'Remove a webhook endpoint',
    errors: [409],
    input: webhookActionBody,
    success: { status: 204, description: 'Removed; no body' },
  },
  {
    method: 'post',
    path: `${webhooks}/:id/test`,
    tag: 'v2 webhooks',
    summary: 'Send the signed test POST to the endpoint now and answer its outcome',
    input: webhookActionBody,
    success: { status: 200, schema: webhookTestResponse },
  },
  {
    method: 'post',
    path: `${webhooks}/:id/rotate_secret`,
    tag: 'v2 webhooks',
    summary: 'Rotate the secret; the old one signs for 24 more hours',
    input: webhookActionBody,
    success: { status: 200, schema: webhookResponse },
  },
  {
    method: 'get',
    path: '/api/p2/companies/:companyId/settings',
    tag: 'v2 companies',
    summary: "The company's settings: its message retention in days (null: the gateway's default)",
    input: companySettingsQuery,
    success: { status: 200, schema: companySettingsResponse },
  },
  {
    method: 'put',
    path: '/api/p2/companies/:companyId/settings',
    tag: 'v2 companies',
    summary:
      "Set the company's message retention: 1 to 3650 days, or null for the gateway's default; older messages and their files are deleted by the retention pass",
    input: companySettingsBody,
    success: { status: 200, schema: companySettingsResponse },
  },
  {
    method: 'delete',
    path: '/api/p2/companies/:companyId/contacts/:id',
    tag: 'v2 contacts',
    summary:
      "Erase a contact: its conversations, messages and attachments' files, and its data in kept events, deliveries and attempts; writes contact.delete",
    input: contactEraseBody,
    success: { status: 200, schema: contactEraseResponse },
  },
  {
    method: 'get',
    path: '/api/p2/event_types',
    tag: 'v2 webhooks',
    summary:
      'The event catalog: every event type sent to webhook endpoints, with the JSON Schema of its body and an example (also under `webhooks` in this document)',
    success: { status: 200, schema: eventTypeListResponse },
  },
  {
    method: 'get',
    path: '/api/p2/companies/:companyId/events/stream',
    tag: 'v2 webhooks',
    summary:
      "The company's events live as Server-Sent Events (`text/event-stream`): `id:` the event's id, `event:` its type, `data:` the v2 envelope `{id, event, type, created_at, object}`. `Last-Event-ID` resumes right after that event, from the event log kept 24 hours; an id not kept is 409. At most 5 open streams per company and 20 per account (429)",
    success: { status: 200, description: 'A `text/event-stream` that lasts until the client closes it' },
    errors: [409, 429],
  },
  {
    method: 'get',
    path: '/api/p2/providers',
    tag: 'v2 providers',
    summary:
      'The provider capability catalog: for each provider how it authenticates, writing first, templates, groups, reactions, edits, deletes, read receipts (what the provider has, and what the gateway carries of it) and the attachment kinds and sizes it takes',
    success: { status: 200, schema: providerListResponse },
  },
  {
    method: 'post',
    path: '/api/p2/companies/:companyId/portal_sessions',
    tag: 'v2 portal',
    summary: "A single-use link into the company's portal (its webhook endpoints and event log), valid for 10 minutes",
    success: { status: 201 },
  },
];

const service: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    tag: 'service',
    summary: 'Health of the daemon and its store',
    auth: 'none',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'service',
    summary:
      'Prometheus metrics (text format); Authorization: Bearer GATEWAY_METRICS_TOKEN, else GATEWAY_ADMIN_TOKEN when one is set',
    auth: 'none',
    errors: [401],
    success: { status: 200, description: 'The metrics, text/plain; version=0.0.4' },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'service',
    summary: 'This document',
    auth: 'none',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/files/:storageKey/:fileName',
    tag: 'service',
    summary: 'An uploaded file; its unguessable URL is the capability',
    auth: 'none',
    success: { status: 200, description: 'The file' },
  },
];

/** Provider callbacks: each family proves itself by its own signature (docs/connector-protocol.md, docs/decisions.md "Callbacks"). */
const callbackOps: Operation[] = [
  {
    method: 'post',
    path: '/callbacks/:provider/:channelId',
    tag: 'callbacks',
    summary: 'A provider callback (cloud-style, bot-style or connector protocol), verified over the raw body',
    auth: 'none',
    readsBody: true,
    errors: [401, 422],
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/callbacks/:provider/:channelId/oauth',
    tag: 'callbacks',
    summary:
      "OAuth redirect of an auth created by provider alone: the provider sends the user's browser here with the auth's state (the capability; a wrong one is a 404) and its code; answers {status: 'ok', state}",
    auth: 'none',
    input: oauthRedirectQuery,
    errors: [409, 502, 503],
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/callbacks/chat_a_business/:channelId',
    tag: 'callbacks',
    summary:
      'Cloud-style subscribe handshake: answers hub.challenge as text when hub.verify_token matches; 422 for a malformed query (hub.mode other than subscribe, a missing or repeated parameter), 403 for a wrong verify token, 404 for an unknown channel',
    auth: 'none',
    input: cloudHandshakeQuery,
    errors: [403],
    success: { status: 200, description: 'The challenge, as text/plain' },
  },
];

/** The operators' API (admin token), present only when GATEWAY_ADMIN_TOKEN is set. */
const adminOps: Operation[] = [
  {
    method: 'get',
    path: '/admin/deliveries',
    tag: 'admin',
    summary: 'List deliveries by company, endpoint, status, event type and time (keyset pages)',
    auth: 'admin',
    input: adminDeliveryListQuery,
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/admin/deliveries/:deliveryId',
    tag: 'admin',
    summary: 'One delivery with its event body and its attempts',
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/deliveries/:deliveryId/replay',
    tag: 'admin',
    summary: 'Replay one delivery now (a manual attempt)',
    auth: 'admin',
    errors: [409, 503],
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/replays',
    tag: 'admin',
    summary: 'Replay every delivery matching a filter; answers 202 with a task id',
    auth: 'admin',
    readsBody: true,
    input: adminBulkReplayBody,
    success: { status: 202 },
  },
  {
    method: 'get',
    path: '/admin/replays/:taskId',
    tag: 'admin',
    summary: 'Progress of a bulk replay',
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/replays/:taskId/cancel',
    tag: 'admin',
    summary: 'Cancel a queued or running bulk replay (409 when it ended already)',
    auth: 'admin',
    errors: [409],
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/admin/companies/:companyId/endpoints',
    tag: 'admin',
    summary: "Health, delivery options and held deliveries of a company's webhook endpoints",
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/companies/:companyId/endpoints/:endpointId/disable',
    tag: 'admin',
    summary: 'Disable a webhook endpoint, with the reason shown as disabled_reason',
    auth: 'admin',
    readsBody: true,
    input: adminEndpointDisableBody,
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/companies/:companyId/endpoints/:endpointId/enable',
    tag: 'admin',
    summary: 'Enable a webhook endpoint again',
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/companies/:companyId/endpoints/:endpointId/held/discard',
    tag: 'admin',
    summary: "Discard an endpoint's held deliveries (they fail, replayable) instead of sending them",
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/admin/pipeline',
    tag: 'admin',
    summary: 'Outbox lag, stream lag, and webhook attempts per minute over the last hour',
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/channels/:id/templates/sync',
    tag: 'admin',
    summary: "Sync a chat_a_business channel's templates from the provider now",
    auth: 'admin',
    errors: [422, 502, 503],
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/sandbox/channels/:id/messages',
    tag: 'admin',
    summary:
      'Sandbox only (GATEWAY_SANDBOX=true): inject an incoming message into a channel, or with `group` into a group chat of it',
    auth: 'admin',
    readsBody: true,
    input: sandboxMessageBody,
    success: { status: 201 },
  },
  {
    method: 'get',
    path: '/admin/companies/:companyId/export',
    tag: 'admin',
    summary:
      "The company's data as NDJSON (application/x-ndjson), streamed: one object per line with its kind (company, channel, contact, conversation, message, attachment, webhook), without credentials, secrets or file capabilities",
    auth: 'admin',
    success: { status: 200, description: 'NDJSON lines; x-export-lines names how many' },
  },
  {
    method: 'get',
    path: '/admin/tokens',
    tag: 'admin',
    summary:
      "The accounts' API tokens (id, prefix, creation, last use within a minute, revocation), never the tokens themselves",
    auth: 'admin',
    input: adminTokenListQuery,
    success: { status: 200 },
  },
  {
    method: 'post',
    path: '/admin/tokens/:tokenId/revoke',
    tag: 'admin',
    summary: 'Revoke an API token: its next request answers 401',
    auth: 'admin',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/admin/channels/:id/callback',
    tag: 'admin',
    summary: "A channel's callback URL and verification secrets (operators only)",
    auth: 'admin',
    success: { status: 200 },
  },
];

/** Routes taking the admin token answer 429 while the client's address waits after wrong ones (src/http/auth-throttle.ts). */
const throttled = (op: Operation): Operation => ({ ...op, errors: [...new Set([...(op.errors ?? []), 429])] });

/** Every route of the API; test/api/openapi.test.ts fails when a registered route is missing here. */
export const OPERATIONS: readonly Operation[] = [
  ...service.map((op) => (op.path === '/metrics' ? throttled(op) : op)),
  ...v1,
  ...v2,
  ...authOps,
  ...webhookOps,
  ...callbackOps,
  ...adminOps.map(throttled),
];
