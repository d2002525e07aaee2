import type { FromSchema } from 'json-schema-to-ts';
import type { BrokerDestination, KafkaSettings } from '../../schemas/objects/destination.js';
import type { portalWebhookUpdateBody } from '../../schemas/portal.js';
import { ValidationFailed } from '../errors/errors.js';
import type { DestinationInput } from '../http/endpoint-destination.js';
import { brokerDestinationOf } from '../presenters/destination.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';

/**
 * The portal never shows a stored credential, so its endpoint form leaves them empty to keep them:
 * a PATCH without the SASL username or password, without user and password in the AMQP URL, or
 * without the SQS access key, keeps the stored ones. They are kept only while the target's hosts
 * stay the same (the same set of Kafka brokers, the same AMQP host and port, the same SQS host):
 * a session that moves an endpoint elsewhere must give the credentials again, so that a portal
 * link never lets stored credentials be sent to a host of its choosing.
 */

type PortalUpdate = FromSchema<typeof portalWebhookUpdateBody>;

/** The update's destination fields with the kept credentials filled in, as the API's rules take them. */
export function withKeptCredentials(
  endpoint: Pick<WebhookEndpointRow, 'type' | 'destination'>,
  input: PortalUpdate,
): DestinationInput {
  const { url, kafka, rabbitmq, sqs } = input;
  const stored = brokerDestinationOf(endpoint);
  // Settings of another type than the endpoint's are refused by destinationOnUpdate, untouched here.
  if (kafka !== undefined && stored?.type === 'kafka') return { url, rabbitmq, sqs, kafka: keptSasl(stored, kafka) };
  if (rabbitmq !== undefined && stored?.type === 'rabbitmq') {
    return {
      url,
      kafka: kafka as KafkaSettings | undefined,
      sqs,
      rabbitmq: { ...rabbitmq, url: keptUserinfo(stored, rabbitmq.url) },
    };
  }
  if (sqs !== undefined && stored?.type === 'sqs')
    return { url, kafka: kafka as KafkaSettings | undefined, rabbitmq, sqs: keptAccessKey(stored, sqs) };
  // A SASL block without its username or password reaches the API's rules only to be refused there.
  return { url, kafka: kafka as KafkaSettings | undefined, rabbitmq, sqs };
}

type KafkaDestination = Extract<BrokerDestination, { type: 'kafka' }>;
type RabbitmqDestination = Extract<BrokerDestination, { type: 'rabbitmq' }>;
type SqsDestination = Extract<BrokerDestination, { type: 'sqs' }>;

function keptSasl(stored: KafkaDestination, kafka: NonNullable<PortalUpdate['kafka']>): KafkaSettings {
  const { sasl, ...rest } = kafka;
  if (sasl === undefined) return rest;
  const sameBrokers =
    stored.brokers.length === kafka.brokers.length && kafka.brokers.every((broker) => stored.brokers.includes(broker));
  const filled = { ...sasl };
  for (const part of ['username', 'password'] as const) {
    if (filled[part] !== undefined) continue;
    const kept = stored.sasl?.[part];
    if (kept === undefined)
      throw ValidationFailed.field(
        `kafka/sasl/${part}`,
        `kafka.sasl.${part} is required: the endpoint has none stored to keep`,
      );
    if (!sameBrokers)
      throw ValidationFailed.field(
        `kafka/sasl/${part}`,
        `kafka.sasl.${part} must be given again: the brokers changed, and a stored credential goes only to the brokers it was given for`,
      );
    filled[part] = kept;
  }
  return { ...rest, sasl: { mechanism: filled.mechanism, username: filled.username!, password: filled.password! } };
}

const AMQP_USERINFO = /^(amqps?:\/\/)([^@/?#]*)@/;

function keptUserinfo(stored: RabbitmqDestination, url: string): string {
  const storedUserinfo = AMQP_USERINFO.exec(stored.url)?.[2];
  if (storedUserinfo === undefined || AMQP_USERINFO.test(url)) return url;
  if (hostOf(url) !== hostOf(stored.url)) {
    throw ValidationFailed.field(
      'rabbitmq/url',
      'rabbitmq.url must carry its user and password again: the host changed, and a stored credential goes only to the host it was given for',
    );
  }
  return url.replace(/^(amqps?:\/\/)/, `$1${storedUserinfo}@`);
}

function keptAccessKey(
  stored: SqsDestination,
  sqs: NonNullable<PortalUpdate['sqs']>,
): NonNullable<PortalUpdate['sqs']> {
  if (sqs.access_key_id !== undefined || stored.access_key_id === undefined) return sqs;
  if (hostOf(sqs.queue_url) !== hostOf(stored.queue_url)) {
    throw ValidationFailed.field(
      'sqs/access_key_id',
      'sqs.access_key_id and sqs.secret_access_key must be given again: the queue host changed, and a stored credential goes only to the host it was given for',
    );
  }
  return { ...sqs, access_key_id: stored.access_key_id, secret_access_key: stored.secret_access_key! };
}

/** `host:port` of a URL, or the whole string when it does not parse (then it matches nothing else). */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host.toLowerCase() : url;
}
