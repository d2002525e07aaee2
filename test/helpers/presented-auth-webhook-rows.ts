// Realistic rows of auths (channels as creation stores them) and webhook endpoints, null and optional
// variants included, for the src/presenters/presented-objects-*.test.ts files.
import { PROVIDERS, type Provider } from '../../schemas/v1/channels.js';
import { connectionFor } from '../../src/domain/channels.js';
import type { AuthPageRow } from '../../src/store/resources/auth-pages.js';
import type { ChannelRow } from '../../src/store/resources/channels.js';
import { generateSigningKey } from '../../src/lib/signing-keys.js';
import { generateWebhookSecret, type WebhookEndpointRow } from '../../src/store/resources/webhooks.js';

import { NOW, T0 } from './presented-objects-fixtures.js';

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

export const channelRows: [string, ChannelRow][] = [
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

export const authPage: AuthPageRow = {
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

export const webhookRows: [string, WebhookEndpointRow][] = [
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
