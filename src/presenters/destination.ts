import type { FromSchema } from 'json-schema-to-ts';
import type {
  BrokerDestination,
  KafkaSettings,
  RabbitmqSettings,
  kafkaObject,
  rabbitmqObject,
} from '../../schemas/objects/destination.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';

/**
 * How a broker endpoint is shown: its target as one line (the endpoint's `url`) and its settings
 * without credentials (the SASL username and password, the AMQP URL's user and password). These
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

/** The endpoint's target as its `url` shows it: `kafka://<brokers>/<topic>`, or the AMQP URL without credentials. */
export function targetOf(destination: BrokerDestination): string {
  if (destination.type === 'kafka') return `kafka://${destination.brokers.join(',')}/${destination.topic}`;
  return withoutUserinfo(destination.url);
}

/** The stored settings of a broker endpoint with its type; undefined for a webhook. */
export function brokerDestinationOf(
  row: Pick<WebhookEndpointRow, 'type' | 'destination'>,
): BrokerDestination | undefined {
  if (row.type === 'webhook' || row.destination === null) return undefined;
  const settings = JSON.parse(row.destination) as KafkaSettings | RabbitmqSettings;
  return { type: row.type, ...settings } as BrokerDestination;
}

type Shown =
  | { type: 'kafka'; kafka: FromSchema<typeof kafkaObject> }
  | { type: 'rabbitmq'; rabbitmq: FromSchema<typeof rabbitmqObject> };

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
  return {
    type: 'rabbitmq',
    rabbitmq: {
      url: withoutUserinfo(destination.url),
      exchange: destination.exchange ?? '',
      routing_key: destination.routing_key,
    },
  };
}
