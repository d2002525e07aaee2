// Every presenter of a response object, fed realistic rows (null and optional variants included),
// answers what its schema in schemas/objects/ describes: checked with the strict test ajv, as the
// object alone, inside the REST answers that carry it and inside the events that carry it.
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { attachmentObject } from '../../schemas/objects/attachment.js';
import { authObject } from '../../schemas/objects/auth.js';
import { conversationObject } from '../../schemas/objects/conversation.js';
import { messageObject } from '../../schemas/objects/message.js';
import { messageEventObject } from '../../schemas/objects/message-event.js';
import { templateObject } from '../../schemas/objects/template.js';
import { webhookObject } from '../../schemas/objects/webhook.js';
import { PROVIDERS, type Provider } from '../../schemas/v1/channels.js';
import { authListResponse, authResponse } from '../../schemas/v2/auths.js';
import { webhookListResponse, webhookResponse } from '../../schemas/v2/webhooks.js';
import { assertValidEvent } from '../../test/helpers/events.js';
import { compileSchema, schemaErrors } from '../../test/helpers/schemas.js';
import { connectionFor } from '../domain/channels.js';
import { recordAuthSignal } from '../domain/channel-events.js';
import { recordEvent } from '../domain/events.js';
import type { AttachmentRow } from '../store/resources/attachments.js';
import type { AuthPageRow } from '../store/resources/auth-pages.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { ConversationRow } from '../store/resources/conversations.js';
import type { MessageRow } from '../store/resources/messages.js';
import type { OutboxStore } from '../store/pipeline/outbox.js';
import type { Store } from '../store/store.js';
import type { TemplateRow } from '../store/resources/templates.js';
import { generateSigningKey } from '../lib/signing-keys.js';
import { generateWebhookSecret, type WebhookEndpointRow } from '../store/resources/webhooks.js';
import type { EventRecord } from '../streams/catalog.js';
import { presentAttachment, type AttachmentObject } from './attachment.js';
import { presentAuth, presentAuthPage, type AuthObject } from './auth.js';
import { presentConversation, type ConversationObject } from './conversation.js';
import { presentMessage, type MessageObject } from './message.js';
import { presentMessageEvent } from './message-event.js';
import { publicUrls } from './public-urls.js';
import { presentTemplate, type TemplateObject } from './template.js';
import { presentWebhook, type WebhookObject } from './webhook.js';

const PUBLIC_URL = 'https://gateway.example.com';
const URLS = publicUrls(PUBLIC_URL);
const T0 = Date.parse('2026-11-02T10:15:30.123Z');
const NOW = new Date(T0 + 60_000);

const isAttachment = compileSchema(attachmentObject);
const isAuth = compileSchema(authObject);
const isConversation = compileSchema(conversationObject);
const isMessage = compileSchema(messageObject);
const isMessageEvent = compileSchema(messageEventObject);
const isTemplate = compileSchema(templateObject);
const isWebhook = compileSchema(webhookObject);
const isAuthResponse = compileSchema(authResponse);
const isAuthList = compileSchema(authListResponse);
const isWebhookResponse = compileSchema(webhookResponse);
const isWebhookList = compileSchema(webhookListResponse);

type Validate = ReturnType<typeof compileSchema>;

function expectValid(validate: Validate, value: unknown): void {
  const valid = validate(value);
  expect(valid, `${schemaErrors(validate)}\n${JSON.stringify(value)}`).toBe(true);
}

function expectInvalid(validate: Validate, value: unknown): void {
  expect(validate(value), `accepted: ${JSON.stringify(value)}`).toBe(false);
}

/** The events recordEvent (and the flows built on it) would append, captured instead of stored. */
function capturedEvents(): { outbox: OutboxStore; store: Store; events: EventRecord[] } {
  const events: EventRecord[] = [];
  const outbox = {
    append: (message: { payload: unknown }) => void events.push(message.payload as EventRecord),
  } as unknown as OutboxStore;
  // Pages as the store keeps them, in memory: a list replaces them, ids are assigned in order.
  let pages: AuthPageRow[] = [];
  const authPages = {
    forChannel: (channelId: number) => pages.filter((p) => p.channel_id === channelId),
    replaceListed: (channel: { id: number; company_id: number }, listed: { id: string; name: string }[]) => {
      pages = listed.map((p, i) => ({
        id: 900 + i,
        channel_id: channel.id,
        company_id: channel.company_id,
        external_id: p.id,
        name: p.name,
        username: null,
        enabled: 0,
        created_at: T0,
        updated_at: T0,
      }));
    },
    enable: (_channelId: number, externalId: string) =>
      void pages.filter((p) => p.external_id === externalId).forEach((p) => (p.enabled = 1)),
  };
  return { outbox, store: { outbox, authPages } as unknown as Store, events };
}

// ---------------------------------------------------------------------------------------------
// Rows

const attachmentRows: AttachmentRow[] = [
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

const messageRows: [string, MessageRow, AttachmentRow[]][] = [
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

const conversationRows: [string, ConversationRow][] = [
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

const templateRows: [string, TemplateRow][] = [
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

/** A channel row as creation stores it: the settings the provider's variant keeps (connectionFor). */
function channel(
  id: number,
  provider: Provider,
  input: Record<string, unknown>,
  overrides: Partial<ChannelRow> = {},
): ChannelRow {
  const connection = connectionFor(provider, input, NOW);
  return {
    id,
    company_id: 3,
    provider,
    ...connection,
    created_at: T0,
    updated_at: T0 + 1_000,
    deleted_at: null,
    ...overrides,
  };
}

const channelRows: [string, ChannelRow][] = [
  [
    'chat_d by QR, with a history window',
    channel(71, 'chat_d', { sync_messages_from: new Date(T0 - 86_400_000).toISOString() }),
  ],
  ['chat_a by QR', channel(72, 'chat_a', {})],
  ['chat_a by pairing code', channel(73, 'chat_a', { phone: '79161234567' })],
  [
    'chat_a_business by token',
    channel(74, 'chat_a_business', { hosting_type: 'cloud', token: 'EAAG-secret', subtype: 'unlim' }),
  ],
  [
    'chat_a_business by vendor channel',
    channel(75, 'chat_a_business', {
      hosting_type: 'onpremise',
      vendor_channel_id: 'vc-1',
      vendor_client_id: 'cl-1',
      account_name: 'Shop',
      subtype: 'no_write_first',
    }),
  ],
  ['chat_b_personal by QR, enabled', channel(76, 'chat_b_personal', { via_qr_code: true }, { state: 'enabled' })],
  [
    'chat_b_personal by code',
    channel(77, 'chat_b_personal', { phone: '+491701234567', sync_messages_from: Math.floor(T0 / 1000) }),
  ],
  [
    'social_c_business with its profile',
    channel(78, 'social_c_business', { token: 't', phone: '+1 555 0100', data: { id: 'p1' } }),
  ],
  [
    'social_c, deleted',
    channel(79, 'social_c', { login: 'user', password: 'pw' }, { state: 'disabled', deleted_at: T0 + 2_000 }),
  ],
  ...PROVIDERS.filter((p) => ['chat_b', 'chat_c', 'social_a', 'social_a_direct', 'social_b'].includes(p)).map(
    (provider, i): [string, ChannelRow] => [
      `${provider} by token`,
      channel(80 + i, provider, { token: `token-${provider}` }),
    ],
  ),
  ['market_a, disabled', channel(90, 'market_a', { login: 'seller', password: 'pw' }, { state: 'disabled' })],
  [
    'social_a by OAuth, synced from a week back',
    channel(
      92,
      'social_a',
      {},
      {
        state: 'unconfirmed',
        settings: { auth_flow: 'oauth', sync_messages_from: new Date(T0 - 7 * 86_400_000).toISOString() },
      },
    ),
  ],
  [
    'chat_a by QR, connected with the account the provider told',
    channel(
      93,
      'chat_a',
      {},
      { state: 'enabled', settings: { account_phone: '79000000000', account_username: 'shop' } },
    ),
  ],
  // Stored settings beyond the shown ones (older rows, fields a client sent beside the variant's own) are not shown.
  [
    'a row with settings that are not shown',
    {
      ...channel(91, 'chat_a', { phone: '79161234567' }),
      settings: { phone: '79161234567', webhook_secret: 'x', extra: 1 },
    },
  ],
];

const authPage: AuthPageRow = {
  id: 901,
  channel_id: 92,
  company_id: 3,
  external_id: '229559196',
  name: 'Test1',
  username: null,
  enabled: 0,
  created_at: T0,
  updated_at: T0,
};

const webhook = (overrides: Partial<WebhookEndpointRow>): WebhookEndpointRow => ({
  id: 31,
  company_id: 3,
  source: 'api',
  url: 'https://crm.example.com/hooks/gateway',
  secret: generateWebhookSecret(),
  previous_secret: null,
  previous_secret_expires_at: null,
  event_types: JSON.stringify(['message.create', 'message.update', 'channel.qr_code', 'job.executed']),
  active: 1,
  disabled_reason: null,
  ordering: 'default',
  rate_limit: null,
  filter: null,
  retry_schedule: null,
  type: 'webhook',
  destination: null,
  head_delivery_id: null,
  created_at: T0,
  updated_at: T0,
  ...overrides,
});

const webhookRows: [string, WebhookEndpointRow][] = [
  ['an API endpoint for some events', webhook({})],
  [
    'the company webhook_url, every event',
    webhook({ id: 32, source: 'company', url: 'http://crm.example.com/v1-hook', event_types: null }),
  ],
  [
    'a rotated endpoint',
    webhook({
      id: 33,
      previous_secret: generateWebhookSecret(),
      previous_secret_expires_at: T0 + 86_400_000,
      updated_at: T0 + 5,
    }),
  ],
  [
    'an endpoint disabled for failing',
    webhook({ id: 34, active: 0, disabled_reason: 'failing since 2026-10-28T00:00:00.000Z (5 days)' }),
  ],
  [
    'a strictly ordered, rate-limited endpoint',
    webhook({ id: 35, ordering: 'strict', rate_limit: 20, head_delivery_id: 'dlv_0123456789abcdef' }),
  ],
  ['an endpoint signing with ed25519', webhook({ id: 38, secret: generateSigningKey() })],
  [
    'a Kafka endpoint with SASL and TLS',
    webhook({
      id: 40,
      type: 'kafka',
      url: 'kafka://b1.example.com:9093,b2.example.com:9093/gateway-events',
      destination: JSON.stringify({
        brokers: ['b1.example.com:9093', 'b2.example.com:9093'],
        topic: 'gateway-events',
        sasl: { mechanism: 'scram-sha-512', username: 'gw-user', password: 'kafka-pass-secret' },
        tls: { servername: 'kafka.example.com' },
      }),
    }),
  ],
  [
    'a RabbitMQ endpoint with credentials in its URL',
    webhook({
      id: 41,
      type: 'rabbitmq',
      url: 'amqps://mq.example.com/prod',
      destination: JSON.stringify({
        url: 'amqps://gw-user:amqp-pass-secret@mq.example.com/prod',
        exchange: 'events',
        routing_key: 'gateway',
      }),
    }),
  ],
  [
    'an SQS endpoint with an access key',
    webhook({
      id: 42,
      type: 'sqs',
      url: 'https://sqs.eu-west-1.amazonaws.com/1/events.fifo',
      destination: JSON.stringify({
        queue_url: 'https://sqs.eu-west-1.amazonaws.com/1/events.fifo',
        region: 'eu-west-1',
        access_key_id: 'AKIA-sqs-key-id',
        secret_access_key: 'sqs-secret-key',
      }),
    }),
  ],
  [
    'an ed25519 endpoint during a rotation',
    webhook({
      id: 39,
      secret: generateSigningKey(),
      previous_secret: generateSigningKey(),
      previous_secret_expires_at: T0 + 1,
    }),
  ],
  ['an endpoint with a retry schedule of its own', webhook({ id: 37, retry_schedule: '[30,600,3600]' })],
  [
    'an endpoint with a payload filter',
    webhook({
      id: 36,
      filter: JSON.stringify({
        and: [
          { path: 'object.direction', op: 'eq', value: 'incoming' },
          {
            or: [
              { path: 'object.channel_id', op: 'in', value: [1, 2] },
              { path: 'object.tags', op: 'exists' },
            ],
          },
        ],
      }),
    }),
  ],
];

// ---------------------------------------------------------------------------------------------

describe('the presenters are typed by the schemas', () => {
  it('answer FromSchema<object schema>', () => {
    expectTypeOf(presentAttachment).returns.toEqualTypeOf<FromSchema<typeof attachmentObject>>();
    expectTypeOf(presentAuth).returns.toEqualTypeOf<FromSchema<typeof authObject>>();
    expectTypeOf(presentConversation).returns.toEqualTypeOf<FromSchema<typeof conversationObject>>();
    expectTypeOf(presentMessage).returns.toEqualTypeOf<FromSchema<typeof messageObject>>();
    expectTypeOf(presentMessageEvent).returns.toEqualTypeOf<FromSchema<typeof messageEventObject>>();
    expectTypeOf(presentTemplate).returns.toEqualTypeOf<FromSchema<typeof templateObject>>();
    expectTypeOf(presentWebhook).returns.toEqualTypeOf<FromSchema<typeof webhookObject>>();
    expectTypeOf<AttachmentObject>().toEqualTypeOf<FromSchema<typeof attachmentObject>>();
    expectTypeOf<AuthObject>().toEqualTypeOf<FromSchema<typeof authObject>>();
    expectTypeOf<ConversationObject>().toEqualTypeOf<FromSchema<typeof conversationObject>>();
    expectTypeOf<MessageObject>().toEqualTypeOf<FromSchema<typeof messageObject>>();
    expectTypeOf<TemplateObject>().toEqualTypeOf<FromSchema<typeof templateObject>>();
    expectTypeOf<WebhookObject>().toEqualTypeOf<FromSchema<typeof webhookObject>>();
  });
});

describe('attachments', () => {
  it.each(attachmentRows.map((row) => [row.file_name, row] as const))('%s matches objects/attachment', (_name, row) => {
    const object = presentAttachment(row, URLS);
    expectValid(isAttachment, object);
  });

  it('covers the optional and null variants', () => {
    const objects = attachmentRows.map((row) => presentAttachment(row, URLS));
    expect(objects.some((o) => o.preview_url === undefined)).toBe(true);
    expect(objects.some((o) => o.aspect_ratio === null)).toBe(true);
    expect(objects.some((o) => o.message_id === null)).toBe(true);
    expect(objects.some((o) => Object.keys(o.data).length === 0)).toBe(true);
    expect(objects.some((o) => o.push_to_talk === true)).toBe(true);
  });
});

describe('messages', () => {
  it.each(messageRows)('%s matches objects/message and its events match events/message', (_name, row, attachments) => {
    const object = presentMessage(row, attachments, URLS);
    expectValid(isMessage, object);
    const { outbox, events } = capturedEvents();
    for (const [, conversationRow] of conversationRows) {
      const eventObject = presentMessageEvent(row, attachments, conversationRow, URLS);
      expectValid(isMessageEvent, eventObject);
      recordEvent(outbox, row.company_id, 'message', 'create', eventObject, NOW);
      recordEvent(outbox, row.company_id, 'message', 'update', eventObject, NOW);
    }
    for (const event of events) assertValidEvent(event);
  });

  it('events name the contact by the provider ids when incoming, by the internal id when outgoing', () => {
    const [incoming, outgoing] = [messageRows[0]![1], messageRows[1]![1]].map((row) =>
      presentMessageEvent(row, [], conversationRows[0]![1], URLS),
    );
    expect(incoming!.contact).toEqual({
      id: 17,
      external_id: '491701234567',
      external_public_id: '+49 170 1234567',
      name: 'Anna Schmidt',
      avatar_url: '',
      phone: '491701234567',
    });
    expect(outgoing!.contact).toEqual({
      id: 17,
      internal_id: 17,
      name: 'Anna Schmidt',
      avatar_url: '',
      phone: '491701234567',
    });
    expect(incoming!.conversation).toEqual(presentConversation(conversationRows[0]![1]));
  });

  it('covers the null variants', () => {
    const objects = messageRows.map(([, row, attachments]) => presentMessage(row, attachments, URLS));
    for (const key of ['external_id', 'replied_to_id', 'message', 'details'] as const) {
      expect(
        objects.some((o) => o[key] === null),
        key,
      ).toBe(true);
      expect(
        objects.some((o) => o[key] !== null),
        key,
      ).toBe(true);
    }
  });
});

describe('conversations', () => {
  it.each(conversationRows)(
    '%s matches objects/conversation and its events match events/conversation',
    (_name, row) => {
      const object = presentConversation(row);
      expectValid(isConversation, object);
      const { outbox, events } = capturedEvents();
      recordEvent(outbox, row.company_id, 'conversation', 'create', object, NOW);
      recordEvent(outbox, row.company_id, 'conversation', 'update', object, NOW);
      for (const event of events) assertValidEvent(event);
    },
  );
});

describe('templates', () => {
  it.each(templateRows)('%s matches objects/biz-template', (_name, row) => {
    expectValid(isTemplate, presentTemplate(row));
  });
});

describe('auths', () => {
  it.each(channelRows)('%s matches objects/auth, the auth answers and the auth events', (_name, row) => {
    const object = presentAuth(row, []);
    expectValid(isAuth, object);
    expectValid(isAuth, presentAuth(row, [authPage, { ...authPage, id: 902, external_id: '223020390', enabled: 1 }]));
    expectValid(isAuthResponse, { auth: object });
    expectValid(isAuthResponse, { auth: { ...object, qr: '2@AbCd==,xyz', code: 'K7QX-2M4P' } });
    expectValid(isAuthList, { auths: [object], meta: { page: 1, entries_count: 1, per_page: 25 } });
    const { outbox, store, events } = capturedEvents();
    for (const event of ['create', 'update', 'delete'] as const)
      recordEvent(outbox, row.company_id, 'auth', event, object, NOW);
    recordAuthSignal(store, row, { kind: 'qr', qr: '2@AbCd==,xyz' }, true, NOW);
    recordAuthSignal(store, row, { kind: 'code', code: 'K7QX-2M4P' }, true, NOW);
    recordAuthSignal(store, row, { kind: 'pages', pages: [{ id: '1', name: 'Shop', username: 'shop' }] }, true, NOW);
    recordAuthSignal(
      store,
      row,
      { kind: 'oauth', oauthProviderUrl: 'https://provider.example.com/oauth?state=abc' },
      true,
      NOW,
    );
    recordAuthSignal(
      store,
      row,
      {
        kind: 'pages',
        pages: [{ id: '7', name: 'Group', oauthProviderUrl: 'https://provider.example.com/oauth?page=7' }],
      },
      false,
      NOW,
    );
    recordAuthSignal(store, row, { kind: 'page_enabled', pageId: '7' }, true, NOW);
    expect(events.map((e) => e.name)).toEqual([
      'auth.create',
      'auth.update',
      'auth.delete',
      'auth.update',
      'channel.qr_code',
      'auth.update',
      'channel.code',
      'auth.update',
      'channel.pages',
      'auth.update',
      'auth.update',
      'auth.update',
    ]);
    expect(events.at(-2)!.body.object).toMatchObject({
      pages: [{ external_id: '7', enabled: false, oauth_provider_url: 'https://provider.example.com/oauth?page=7' }],
    });
    expect(events.at(-1)!.body.object).toMatchObject({ pages: [{ external_id: '7', enabled: true }] });
    for (const event of events) assertValidEvent(event);
  });

  it('shows no credential and no setting beyond the allow-list', () => {
    for (const [, row] of channelRows) {
      const text = JSON.stringify(presentAuth(row, []));
      for (const secret of ['EAAG-secret', 'token-', '"pw"', 'webhook_secret', 'p1'])
        expect(text).not.toContain(secret);
    }
  });

  it('covers every provider, every state and both confirmation kinds', () => {
    const objects = channelRows.map(([, row]) => presentAuth(row, []));
    expect(new Set(objects.map((o) => o.provider))).toEqual(new Set(PROVIDERS));
    expect(new Set(objects.map((o) => o.state))).toEqual(new Set(['unconfirmed', 'enabled', 'disabled']));
    expect(new Set(objects.map((o) => o.confirmation))).toEqual(new Set(['qr', 'pairing_code', 'code', 'oauth', null]));
  });
});

describe('webhooks', () => {
  it.each(webhookRows)('%s matches objects/webhook and the webhook answers', (_name, row) => {
    const object = presentWebhook(row);
    expect(object).not.toHaveProperty('secret');
    expectValid(isWebhook, object);
    expectValid(isWebhookResponse, { webhook: object });
    const shown = presentWebhook(row, { withSecret: true });
    expect(shown.secret).toBe(row.secret);
    expectValid(isWebhook, shown);
    expectValid(isWebhookResponse, { webhook: shown });
  });

  it('a broker endpoint shows its type and settings, never its credentials', () => {
    const kafka = presentWebhook(webhookRows.find(([name]) => name.startsWith('a Kafka'))![1], { withSecret: true });
    expect(kafka).toMatchObject({
      type: 'kafka',
      url: 'kafka://b1.example.com:9093,b2.example.com:9093/gateway-events',
      kafka: {
        brokers: ['b1.example.com:9093', 'b2.example.com:9093'],
        topic: 'gateway-events',
        sasl: { mechanism: 'scram-sha-512' },
        tls: { servername: 'kafka.example.com' },
      },
    });
    const rabbit = presentWebhook(webhookRows.find(([name]) => name.startsWith('a RabbitMQ'))![1], {
      withSecret: true,
    });
    expect(rabbit).toMatchObject({
      type: 'rabbitmq',
      url: 'amqps://mq.example.com/prod',
      rabbitmq: { url: 'amqps://mq.example.com/prod', exchange: 'events', routing_key: 'gateway' },
    });
    const sqs = presentWebhook(webhookRows.find(([name]) => name.startsWith('an SQS'))![1], { withSecret: true });
    expect(sqs).toMatchObject({
      type: 'sqs',
      url: 'https://sqs.eu-west-1.amazonaws.com/1/events.fifo',
      sqs: {
        queue_url: 'https://sqs.eu-west-1.amazonaws.com/1/events.fifo',
        region: 'eu-west-1',
        fifo: true,
        signed: true,
      },
    });
    const text = JSON.stringify([kafka, rabbit, sqs]);
    for (const secret of ['gw-user', 'kafka-pass-secret', 'amqp-pass-secret', 'AKIA-sqs-key-id', 'sqs-secret-key'])
      expect(text).not.toContain(secret);
  });

  it('a webhook endpoint answers no destination keys', () => {
    const object = presentWebhook(webhookRows[0]![1]);
    expect(Object.keys(object)).not.toContain('type');
    expect(Object.keys(object)).not.toContain('kafka');
    expect(Object.keys(object)).not.toContain('rabbitmq');
    expect(Object.keys(object)).not.toContain('sqs');
  });

  it('a list of them matches the list answer', () => {
    const webhooks = webhookRows.map(([, row]) => presentWebhook(row));
    expectValid(isWebhookList, { webhooks, meta: { page: 1, entries_count: webhooks.length, per_page: 25 } });
  });
});

describe('the schemas refuse what the presenters must never answer', () => {
  const attachment = presentAttachment(attachmentRows[0]!, URLS);
  const messageObj = presentMessage(messageRows[2]![1], messageRows[2]![2], URLS);
  const conversationObj = presentConversation(conversationRows[0]![1]);
  const messageEventObj = presentMessageEvent(messageRows[2]![1], messageRows[2]![2], conversationRows[0]![1], URLS);
  const templateObj = presentTemplate(templateRows[0]![1]);
  const auth = presentAuth(channelRows[3]![1], []);
  const webhookObj = presentWebhook(webhookRows[0]![1], { withSecret: true });

  it.each([
    ['attachment with an unknown field', isAttachment, { ...attachment, storage_key: 'x' }],
    ['attachment with a relative URL', isAttachment, { ...attachment, attachment_url: '/files/x/y' }],
    ['attachment with a negative size', isAttachment, { ...attachment, size: -1 }],
    ['attachment with dimensions as text', isAttachment, { ...attachment, data: { width: '1920' } }],
    ['message without milliseconds in created_at', isMessage, { ...messageObj, created_at: '2026-11-02T10:15:30Z' }],
    ['message with an unknown status', isMessage, { ...messageObj, status: 'queued' }],
    ['message without details', isMessage, (({ details: _, ...rest }) => rest)(messageObj)],
    ['message with income as 0/1', isMessage, { ...messageObj, income: 0 }],
    [
      'message with a broken attachment',
      isMessage,
      { ...messageObj, attachments: [{ ...attachment, mime_type: null }] },
    ],
    ['message event without its conversation', isMessageEvent, { ...messageEventObj, conversation: undefined }],
    [
      'message event whose contact mixes internal and provider ids',
      isMessageEvent,
      {
        ...messageEventObj,
        contact: { ...messageEventObj.contact, internal_id: 17, external_id: 'x', external_public_id: 'x' },
      },
    ],
    ['conversation with an unknown state', isConversation, { ...conversationObj, operational_state: 'closed' }],
    ['conversation with group as 0/1', isConversation, { ...conversationObj, group: 0 }],
    ['template without position', isTemplate, (({ position: _, ...rest }) => rest)(templateObj)],
    ['auth with a credential in its settings', isAuth, { ...auth, settings: { ...auth.settings, token: 'EAAG' } }],
    ['auth with its credentials', isAuth, { ...auth, credentials: {} }],
    ['auth of an unknown provider', isAuth, { ...auth, provider: 'carrier_pigeon' }],
    ['auth with an unknown confirmation', isAuth, { ...auth, confirmation: 'sms' }],
    ['auth with a connector signal outside an answer or event', isAuth, { ...auth, qr: 'x' }],
    ['auth without its documented fields', isAuth, (({ phone_number: _, ...rest }) => rest)(auth)],
    ['auth with a page whose id is text', isAuth, { ...auth, pages: [{ ...presentAuthPage(authPage), id: '901' }] }],
    ['webhook with a malformed secret', isWebhook, { ...webhookObj, secret: 'whsec_short' }],
    ['webhook with an unknown event type', isWebhook, { ...webhookObj, event_types: ['message.delete'] }],
    ['webhook with active as 0/1', isWebhook, { ...webhookObj, active: 1 }],
    [
      'webhook list of six',
      isWebhookList,
      { webhooks: Array.from({ length: 6 }, () => presentWebhook(webhookRows[0]![1])) },
    ],
  ] as [string, Validate, unknown][])('%s', (_name, validate, value) => {
    expectInvalid(validate, value);
  });

  it('events with a broken object or a record that disagrees with its body are refused', () => {
    const { outbox, store, events } = capturedEvents();
    recordEvent(outbox, 3, 'message', 'create', { ...messageEventObj, status: 'queued' }, NOW);
    recordEvent(outbox, 3, 'conversation', 'update', { ...conversationObj, group: 0 }, NOW);
    recordEvent(outbox, 3, 'auth', 'update', { ...auth, settings: { token: 'x' } }, NOW);
    recordEvent(outbox, 4, 'message', 'create', messageEventObj, NOW); // another company than the object's
    recordAuthSignal(store, { ...channelRows[0]![1], provider: 'carrier_pigeon' }, { kind: 'qr', qr: 'x' }, true, NOW);
    expect(events).toHaveLength(6);
    for (const event of events.slice(0, 5)) expect(() => assertValidEvent(event), event.name).toThrow();
    // The v1 channel payload of that signal holds no auth object: it stays valid.
    expect(() => assertValidEvent(events[5]!)).not.toThrow();
    expect(() => assertValidEvent({ ...events[5]!, name: 'channel.code' })).toThrow(/disagree/);
  });
});
