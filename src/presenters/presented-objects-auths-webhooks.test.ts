// The presenters of the company's auths and webhook endpoints, fed realistic rows of every provider,
// state and destination, answer what objects/auth and objects/webhook describe, alone, inside the REST
// answers and the events that carry them, and show no credential and no setting beyond the allow-list.
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../schemas/v1/channels.js';
import { authListResponse, authResponse } from '../../schemas/v2/auths.js';
import { webhookResponse } from '../../schemas/v2/webhooks.js';
import { assertValidEvent } from '../../test/helpers/events.js';
import { compileSchema } from '../../test/helpers/schemas.js';
import {
  capturedEvents,
  expectValid,
  isAuth,
  isWebhook,
  isWebhookList,
  NOW,
} from '../../test/helpers/presented-objects-fixtures.js';
import { authPage, channelRows, webhookRows } from '../../test/helpers/presented-auth-webhook-rows.js';
import { recordAuthSignal } from '../domain/channel-events.js';
import { recordEvent } from '../domain/events.js';
import { presentAuth } from './auth.js';
import { presentWebhook } from './webhook.js';

const isAuthResponse = compileSchema(authResponse);
const isAuthList = compileSchema(authListResponse);
const isWebhookResponse = compileSchema(webhookResponse);

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
