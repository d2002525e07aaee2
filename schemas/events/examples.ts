/**
 * One example body per event type, as an endpoint receives it: shown by GET /api/p2/event_types and
 * in the `webhooks` section of /openapi.json. test/api/event-types.test.ts validates each against
 * its schema.
 */

const at = '2025-03-14T09:26:53.589Z';
const envelope = (type: string, event: string, id: string, object: object) => ({
  id,
  event,
  type,
  created_at: at,
  object,
});

const message = {
  id: 4821,
  external_id: 'wamid.HBgLMzQ2MDAwMDAwMDAVAgARGBI',
  company_id: 12,
  conversation_id: 377,
  contact_id: 905,
  replied_to_id: null,
  created_at: at,
  external_created_at: '2025-03-14T09:26:52Z',
  income: true,
  status: 'created',
  message: 'Hello, is my order on its way?',
  reactions: [],
  details: null,
  delivery: false,
  deleted: false,
  attachments: [],
};

const conversation = {
  id: 377,
  company_id: 12,
  sender_name: 'Ana Souza',
  sender_phone: '5511987654321',
  sender_external_id: '5511987654321',
  sender_external_public_id: '5511987654321',
  provider: 'chat_a',
  avatar_url: '',
  created_at: at,
  last_updated_at: at,
  last_message_id: 4821,
  operational_state: 'open',
  replied_state: 'unreplied',
  assignee_id: null,
  note: null,
  unread_count: 1,
  group: false,
  participants: [],
};

const auth = {
  id: 31,
  company_id: 12,
  provider: 'chat_a',
  state: 'unconfirmed',
  phone_number: null,
  username: null,
  confirmation: 'qr',
  settings: { via_qr_code: true },
  created_at: at,
  updated_at: at,
  sync_messages_at: null,
  pages: null,
};

const webhook = {
  id: 7,
  company_id: 12,
  source: 'api',
  url: 'https://hooks.example.com/gateway',
  event_types: null,
  active: false,
  disabled_reason: 'the endpoint answered 410 Gone',
  ordering: 'default',
  rate_limit: null,
  previous_secret_expires_at: null,
  created_at: '2025-03-01T08:00:00.000Z',
  updated_at: at,
};

/** The QR code of the auth.update example as the v1 payload carries it: a base64 PNG (src/lib/qr-image.ts). */
const QR_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAJQAAACUCAAAAABQV18IAAABpklEQVR4nO3TQXLDQAhEUd3/0skqVVOkG9reWEafjazRAI8UuX5uGNenASpApQEqDVBpgEoDVBqg0gCVxj/U1cTfd/V0uWldULtR9cwh1DD1d1oX1H6UW3D3zUFqflcX1DNRXTEFAQUqSa6F3DsoUO6Sa9yhk+agnoNycRZ559nVBbUXNYWDnsVVo5d6gFqFUo3UUrqFdUB3Fi06qBWo+tsVVFAHmgYFtROlMEmxeicZRIFA7UOlgPq9u9cNre6A2oXqkt9teg6hhgG1G1UT61n3dFgFcCBQz0EljVWtbhAHA7ULVRNqYv2tGjuYGlz2B7UK5ZpOhVS+Q00BaheqK+iW9gRX/DSY/OcAtQqlLnXNXW43jMsHtRNVE6dGtbhbaoeKFh3U16NcI9f8bDCdqTqg9qO6uIbF7e4l76D2odRi1sWtzwpUWLX4dnBQ61Dy4oDpzty7w4HaiXILPoFUXncu/wCgHoWqOHfXNVfvoEA5mGtUa6l+oPajunMFVxB1p8OD2otycX6fhnGIWgvUftQdAlQaoNIAlQaoNEClASoNUGncEvUL8XcYJlVGyhYAAAAASUVORK5CYII=';

const channel = (type: string, id: string, fields: object) => ({
  id,
  entity: 'channel',
  type,
  company_id: 12,
  channel_id: 31,
  channel_type: 'chat_a',
  created_at: at,
  ...fields,
});

export const EVENT_EXAMPLES: Record<string, object> = {
  'message.create': envelope('message', 'create', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c11', {
    ...message,
    contact: {
      id: 905,
      external_id: '5511987654321',
      external_public_id: '5511987654321',
      name: 'Ana Souza',
      avatar_url: '',
      phone: '5511987654321',
    },
    conversation,
  }),
  'message.update': envelope('message', 'update', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c12', {
    ...message,
    income: false,
    status: 'delivered',
    contact: { id: 905, internal_id: 905, name: 'Ana Souza', avatar_url: '', phone: '5511987654321' },
    conversation,
  }),
  'conversation.create': envelope('conversation', 'create', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c13', conversation),
  'conversation.update': envelope('conversation', 'update', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c14', {
    ...conversation,
    replied_state: 'replied',
  }),
  'auth.create': envelope('auth', 'create', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c15', auth),
  'auth.update': envelope('auth', 'update', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c16', {
    ...auth,
    qr: `data:image/png;base64,${QR_PNG}`,
  }),
  'contact.delete': envelope('contact', 'delete', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1f', {
    id: 905,
    company_id: 12,
    conversation_ids: [377],
    deleted_at: at,
  }),
  'auth.delete': envelope('auth', 'delete', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c17', { ...auth, state: 'disabled' }),
  'channel.qr_code': channel('qr_code', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c18', { event: 'new', data: QR_PNG }),
  'channel.code': channel('code', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c19', { event: 'new', data: 'K7QD-P2XM' }),
  'channel.state': channel('system', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1a', {
    severity: 'information',
    data: {
      message: 'authorized',
      date: '2025-03-14 09:26:53 UTC',
      date_timestamp: 1741944413,
      timestamp: 1741944413,
      details: { entity: 'channel', entity_id: 31 },
    },
  }),
  'channel.pages': channel('pages', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1b', {
    event: 'new',
    data: [{ id: '1784', name: 'Acme Store', username: 'acmestore' }],
  }),
  'job.executed': {
    id: 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1c',
    type: 'job',
    event: 'executed',
    company_id: 12,
    created_at: at,
    data: { id: 57, result: 'DELIVERED', message_id: 4822, external_id: 'wamid.HBgLMzQ2', date: 1741944413 },
  },
  'group_conversation_contact.new': {
    id: 'evt_0195939b2f55a3c1e0b7d4f2a9e86c23',
    type: 'group_conversation_contact',
    event: 'new',
    company_id: 12,
    created_at: at,
    data: {
      contact: { external_public_id: '491701234567' },
      channel_id: 31,
      channel_type: 'chat_a',
      date_timestamp: 1741944413,
      conversation_id: 903,
    },
  },
  'webhook_url.test': {
    id: 'evt_0195939b2f55a3c1e0b7d4f2a9e86c22',
    source: 'gateway',
    operation: 'test',
    company_id: 12,
    created_at: at,
  },
  'webhook.disabled': envelope('webhook', 'disabled', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1e', webhook),
  'webhook.enabled': envelope('webhook', 'enabled', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c1f', {
    ...webhook,
    active: true,
    disabled_reason: null,
  }),
  'delivery.failed': envelope('delivery', 'failed', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c20', {
    id: 'dlv_0195939b2f55a3c1e0b7',
    event_id: 'evt_0195939b2f55a3c1e0b7d4f2a9e86c11',
    event_type: 'message.create',
    company_id: 12,
    endpoint_id: 7,
    status: 'failed',
    held_reason: null,
    attempt_count: 8,
    next_attempt_at: null,
    last_status_code: 503,
    last_error: 'the receiver answered 503',
    created_at: '2025-03-12T21:04:11.120Z',
    updated_at: at,
  }),
  'webhook.test': envelope('webhook', 'test', 'evt_0195939b2f55a3c1e0b7d4f2a9e86c21', {
    webhook_id: 7,
    text: 'A test event sent from the company portal.',
  }),
};
