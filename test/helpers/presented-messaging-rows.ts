// Realistic rows of the messaging objects (attachments, messages, conversations, templates), null
// and optional variants included, for the src/presenters/presented-objects-*.test.ts files.
import type { AttachmentRow } from '../../src/store/resources/attachments.js';
import type { ConversationRow } from '../../src/store/resources/conversations.js';
import type { MessageRow } from '../../src/store/resources/messages.js';
import type { TemplateRow } from '../../src/store/resources/templates.js';

import { T0 } from './presented-objects-fixtures.js';

// ---------------------------------------------------------------------------------------------
// Rows

export const attachmentRows: AttachmentRow[] = [
  // A photo of a sent message.
  {
    id: 11,
    company_id: 3,
    message_id: 501,
    storage_key: 'Qm9vdGxlZy1zdG9yYWdlLWtleS0wMDAwMDAwMDAwMDE',
    file_name: 'photo.jpg',
    mime_type: 'image/jpeg',
    size: 48_213,
    width: 1920,
    height: 1080,
    push_to_talk: 0,
    created_at: T0,
  },
  // A voice note: no preview_url, no dimensions, not yet on a message.
  {
    id: 12,
    company_id: 3,
    message_id: null,
    storage_key: 'dm9pY2Utbm90ZS1zdG9yYWdlLWtleS0wMDAwMDAwMDAwMDI',
    file_name: 'voice.ogg',
    mime_type: 'audio/ogg',
    size: 9_876,
    width: null,
    height: null,
    push_to_talk: 1,
    created_at: T0,
  },
  // A document whose name needs escaping in the URL.
  {
    id: 13,
    company_id: 3,
    message_id: 502,
    storage_key: 'ZG9jdW1lbnQtc3RvcmFnZS1rZXktMDAwMDAwMDAwMDAwMw',
    file_name: 'Rechnung März #7 (final).pdf',
    mime_type: 'application/pdf',
    size: 0,
    width: null,
    height: null,
    push_to_talk: 0,
    created_at: T0,
  },
  // An image whose dimensions could not be read.
  {
    id: 14,
    company_id: 3,
    message_id: 503,
    storage_key: 'aW1hZ2UtemVyby1kaW1zLWtleS0wMDAwMDAwMDAwMDA0',
    file_name: 'broken.png',
    mime_type: 'image/png',
    size: 120,
    width: 0,
    height: 0,
    push_to_talk: 0,
    created_at: T0,
  },
  // Audio that is not a voice note (an mp3 sent as a file).
  {
    id: 15,
    company_id: 3,
    message_id: 503,
    storage_key: 'YXVkaW8tZmlsZS1zdG9yYWdlLWtleS0wMDAwMDAwMDAwNQ',
    file_name: 'tone.mp3',
    mime_type: 'audio/mpeg',
    size: 3_000,
    width: null,
    height: null,
    push_to_talk: 0,
    created_at: T0,
  },
];

const message = (overrides: Partial<MessageRow>): MessageRow => ({
  id: 501,
  company_id: 3,
  channel_id: 7,
  conversation_id: 41,
  contact_id: 17,
  external_id: 'wamid.HBgLNDkxNzAxMjM0NTY3FQIAERgSQ0E3',
  replied_to_id: null,
  income: 1,
  status: 'delivered',
  text: 'Hallo, ist das Paket unterwegs?',
  reactions: '[]',
  details: null,
  delivery: 0,
  deleted: 0,
  send_to_crm: 1,
  created_at: T0,
  external_created_at: T0 - 2_000,
  ...overrides,
});

export const messageRows: [string, MessageRow, AttachmentRow[]][] = [
  ['an incoming text', message({}), []],
  [
    'an outgoing photo waiting to be sent',
    message({ id: 502, income: 0, status: 'created', external_id: null, text: null }),
    [attachmentRows[0]!],
  ],
  [
    'a failed outgoing reply with the reason',
    message({
      id: 503,
      income: 0,
      status: 'error',
      replied_to_id: 'wamid.PREVIOUS',
      details: JSON.stringify({ errors: [{ code: 131047, title: 'Re-engagement message' }] }),
    }),
    [attachmentRows[3]!, attachmentRows[4]!],
  ],
  [
    'a read message with reactions',
    message({ id: 504, status: 'read', reactions: JSON.stringify([{ emoji: '👍', from: '491701234567' }]) }),
    [],
  ],
  [
    'a deleted, edited message',
    message({ id: 505, status: 'sent', deleted: 1, delivery: 1, details: JSON.stringify({ edited: true }), text: '' }),
    [],
  ],
  [
    'a location',
    message({
      id: 506,
      text: null,
      details: JSON.stringify({ location: { latitude: 52.52, longitude: 13.405, name: 'Mitte' } }),
    }),
    [attachmentRows[2]!],
  ],
  ['a message whose details are a bare JSON value', message({ id: 507, details: '"note"' }), [attachmentRows[1]!]],
];

const conversation = (overrides: Partial<ConversationRow>): ConversationRow => ({
  id: 41,
  company_id: 3,
  channel_id: 7,
  contact_id: 17,
  operational_state: 'open',
  replied_state: 'unreplied',
  assignee_id: null,
  note: null,
  unread_count: 0,
  last_message_id: 501,
  created_at: T0,
  last_updated_at: T0 + 5_000,
  provider: 'chat_a_business',
  channel_state: 'enabled',
  channel_deleted_at: null,
  contact_name: 'Anna Schmidt',
  contact_phone: '491701234567',
  contact_external_id: '491701234567',
  contact_external_public_id: '+49 170 1234567',
  contact_avatar_url: '',
  contact_is_group: 0,
  participants: '[]',
  ...overrides,
});

export const conversationRows: [string, ConversationRow][] = [
  ['a new incoming conversation', conversation({})],
  [
    'an archived, replied, assigned one',
    conversation({
      id: 42,
      operational_state: 'archived',
      replied_state: 'replied',
      assignee_id: 9,
      note: 'VIP',
      unread_count: 3,
    }),
  ],
  [
    'a group without phone and without messages',
    conversation({
      id: 43,
      provider: 'chat_b',
      contact_phone: null,
      last_message_id: null,
      contact_is_group: 1,
      contact_avatar_url: 'https://cdn.example.com/a.png',
      participants: JSON.stringify([
        {
          id: 18,
          name: 'Anna Schmidt',
          phone: null,
          avatar_url: '',
          external_id: '1001',
          external_public_id: '@anna',
        },
      ]),
    }),
  ],
];

const template = (overrides: Partial<TemplateRow>): TemplateRow => ({
  id: 61,
  company_id: 3,
  channel_id: 7,
  name: 'order_shipped',
  body: 'Hi {{1}}, your order {{2}} is on its way.',
  biz_template_id: 'order_shipped:de',
  language: 'de',
  substitutions_count: 2,
  header_content_type: 'text',
  header: 'Your order',
  namespace: 'a1b2c3d4_e5f6',
  position: 1,
  created_at: T0,
  ...overrides,
});

export const templateRows: [string, TemplateRow][] = [
  ['a template with a header', template({})],
  [
    'a template without header, namespace, channel or substitutions',
    template({
      id: 62,
      channel_id: null,
      language: null,
      substitutions_count: 0,
      header_content_type: null,
      header: null,
      namespace: null,
      position: 0,
    }),
  ],
];
