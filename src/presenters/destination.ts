import type { FromSchema } from 'json-schema-to-ts';
import {
  isFifoQueue,
  type BrokerDestination,
  type KafkaSettings,
  type RabbitmqSettings,
  type SqsSettings,
  type kafkaObject,
  type rabbitmqObject,
  type sqsObject,
} from '../../schemas/objects/destination.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';

/**
 * How a broker endpoint is shown: its target as one line (the endpoint's `url`) and its settings
 * without credentials (the SASL username and password, the AMQP URL's user and password, the SQS
 * access key id and secret). These
 * are write-only: nothing here ever returns them.
 */

/** An AMQP URL without its user and password. */
export function withoutUserinfo(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/**
 * The endpoint's target as its `url` shows it: `kafka://<brokers>/<topic>`, the AMQP URL without
 * credentials, or the SQS queue URL.
 */
export function targetOf(destination: BrokerDestination): string {
  if (destination.type === 'kafka') return `kafka://${destination.brokers.join(',')}/${destination.topic}`;
  if (destination.type === 'sqs') return withoutUserinfo(destination.queue_url);
  return withoutUserinfo(destination.url);
}

/** The stored settings of a broker endpoint with its type; undefined for a webhook. */
export function brokerDestinationOf(
  row: Pick<WebhookEndpointRow, 'type' | 'destination'>,
): BrokerDestination | undefined {
  if (row.type === 'webhook' || row.destination === null) return undefined;
  const settings = JSON.parse(row.destination) as KafkaSettings | RabbitmqSettings | SqsSettings;
  return { type: row.type, ...settings } as BrokerDestination;
}

type Shown =
  | { type: 'kafka'; kafka: FromSchema<typeof kafkaObject> }
  | { type: 'rabbitmq'; rabbitmq: FromSchema<typeof rabbitmqObject> }
  | { type: 'sqs'; sqs: FromSchema<typeof sqsObject> };

/** A broker endpoint's type and settings as answered; nothing for a webhook, whose answer stays as it was. */
export function presentDestination(
  row: Pick<WebhookEndpointRow, 'type' | 'destination'>,
): Shown | Record<never, never> {
  const destination = brokerDestinationOf(row);
  if (destination === undefined) return {};
  if (destination.type === 'kafka') {
    const { brokers, topic, sasl, tls } = destination;
    return {
      type: 'kafka',
      kafka: {
        brokers,
        topic,
        ...(sasl === undefined ? {} : { sasl: { mechanism: sasl.mechanism } }),
        ...(tls === undefined ? {} : { tls }),
      },
    };
  }
  if (destination.type === 'sqs') {
    return {
      type: 'sqs',
      sqs: {
        queue_url: withoutUserinfo(destination.queue_url),
        region: destination.region,
        fifo: isFifoQueue(destination.queue_url),
        signed: destination.access_key_id !== undefined,
      },
    };
  }
  return {
    type: 'rabbitmq',
    rabbitmq: {
      url: withoutUserinfo(destination.url),
      exchange: destination.exchange ?? '',
      routing_key: destination.routing_key,
    },
  };
}
