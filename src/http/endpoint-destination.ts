import type {
  BrokerDestination,
  DestinationType,
  KafkaSettings,
  RabbitmqSettings,
  SqsSettings,
} from '../../schemas/objects/destination.js';
import { ValidationFailed } from '../errors/errors.js';
import type { SsrfGuard } from '../net/ssrf.js';
import { brokerDestinationOf, targetOf } from '../presenters/destination.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { requireReachableUrl } from './outbound-url.js';

/** The destination fields of a create or update body (schemas/v2/webhooks.ts). */
export interface DestinationInput {
  type?: DestinationType;
  url?: string;
  kafka?: KafkaSettings;
  rabbitmq?: RabbitmqSettings;
  sqs?: SqsSettings;
}

/** What an endpoint stores of its destination: its type, its `url` (a broker's target), its settings. */
export interface StoredDestination {
  type: DestinationType;
  url: string;
  destination: BrokerDestination | null;
}

/**
 * The destination of a new endpoint: a webhook's url, or a broker's settings under its type's name
 * (schemas/objects/destination.ts). Settings of another type, or a url beside a broker's settings,
 * are a 422 naming the field; so is a target in a range the SSRF guard refuses.
 */
export function destinationOnCreate(guard: SsrfGuard, input: DestinationInput): StoredDestination {
  const type = input.type ?? 'webhook';
  refuseOtherFields(type, input);
  if (type === 'webhook') {
    requireReachableUrl(guard, input.url!, 'url');
    return { type, url: input.url!, destination: null };
  }
  const destination = settingsOf(type, input)!;
  requireReachableBrokers(guard, destination);
  return { type, url: targetOf(destination), destination };
}

/**
 * The destination fields of an update: the type stays the endpoint's own; a broker endpoint's new
 * settings replace the old ones whole (its credentials too) and change its `url` with them.
 */
export function destinationOnUpdate(
  guard: SsrfGuard,
  endpoint: Pick<WebhookEndpointRow, 'type' | 'destination'>,
  input: DestinationInput,
): { url?: string; destination?: BrokerDestination } {
  if (input.type !== undefined && input.type !== endpoint.type) {
    throw ValidationFailed.field(
      'type',
      `the endpoint is a ${endpoint.type} endpoint: its type is chosen when it is created (create another endpoint for ${input.type})`,
    );
  }
  refuseOtherFields(endpoint.type, input);
  if (endpoint.type === 'webhook') {
    if (input.url !== undefined) requireReachableUrl(guard, input.url, 'url');
    return input.url === undefined ? {} : { url: input.url };
  }
  const destination = settingsOf(endpoint.type, input);
  if (destination === undefined) return {};
  requireReachableBrokers(guard, destination);
  return { url: targetOf(destination), destination };
}

/** The endpoint's broker settings as they would be after the update (for its activation test). */
export function destinationAfter(
  endpoint: Pick<WebhookEndpointRow, 'type' | 'destination'>,
  change: { destination?: BrokerDestination },
): BrokerDestination | undefined {
  return change.destination ?? brokerDestinationOf(endpoint);
}

/** The settings as the store keeps them: the type has a column of its own. */
export function storedSettings(destination: BrokerDestination): object {
  const { type: _type, ...settings } = destination;
  return settings;
}

function settingsOf(type: BrokerDestination['type'], input: DestinationInput): BrokerDestination | undefined {
  if (type === 'kafka') return input.kafka === undefined ? undefined : { type, ...input.kafka };
  if (type === 'sqs') return input.sqs === undefined ? undefined : { type, ...input.sqs };
  if (input.rabbitmq === undefined) return undefined;
  return { type, ...input.rabbitmq, exchange: input.rabbitmq.exchange ?? '' };
}

/** Fields that belong to another type than the endpoint's are refused, not ignored. */
function refuseOtherFields(type: DestinationType, input: DestinationInput): void {
  const others = (['url', 'kafka', 'rabbitmq', 'sqs'] as const).filter(
    (field) => input[field] !== undefined && field !== (type === 'webhook' ? 'url' : type),
  );
  if (others.length === 0) return;
  throw new ValidationFailed(
    others.map((field) => ({
      field,
      detail:
        type === 'webhook'
          ? `${field} is for ${field} endpoints: a webhook endpoint has a url (send "type": "${field}" to create one)`
          : `${field} is not a setting of a ${type} endpoint: its target is given under "${type}"`,
    })),
  );
}

/** A broker host in a range the SSRF guard refuses is named when the settings are given. */
function requireReachableBrokers(guard: SsrfGuard, destination: BrokerDestination): void {
  if (destination.type === 'rabbitmq') {
    requireReachableUrl(guard, destination.url, 'rabbitmq/url');
    return;
  }
  if (destination.type === 'sqs') {
    requireReachableUrl(guard, destination.queue_url, 'sqs/queue_url');
    const url = URL.canParse(destination.queue_url) ? new URL(destination.queue_url) : null;
    if (url === null)
      throw ValidationFailed.field('sqs/queue_url', 'sqs/queue_url must be the http(s) URL of an SQS queue');
    if (url.protocol === 'http:' && !guard.isAllowed(url.hostname))
      throw ValidationFailed.field(
        'sqs/queue_url',
        `sqs/queue_url must be https: plain http is only for hosts GATEWAY_WEBHOOK_ALLOW_HOSTS names (${url.hostname} is not one)`,
      );
    return;
  }
  destination.brokers.forEach((broker, index) =>
    requireReachableUrl(guard, `kafka://${broker}`, `kafka/brokers/${index}`),
  );
}
