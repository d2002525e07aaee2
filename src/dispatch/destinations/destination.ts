import type { BrokerDestination } from '../../../schemas/objects/destination.js';
import type { WebhookResponse } from '../http-client.js';

/**
 * Destinations beyond HTTP (docs/api.md, "Destinations"). A broker endpoint's attempt goes through
 * the same engine as a webhook's (order, pace, retries, health, the attempt log); only its last step
 * differs: the signed event is published on the company's broker instead of POSTed. A publish the
 * broker confirmed is delivered; anything else is the attempt's error, retried by the policy.
 */

/** One event as a broker message: the signed body and the headers a webhook would carry. */
export interface BrokerMessage {
  /** The event's id: the consumers' deduplication key (`webhook-id`, AMQP messageId). */
  id: string;
  body: string;
  /** webhook-id, webhook-timestamp, webhook-signature (and traceparent when tracing). */
  headers: Record<string, string>;
  /** Kafka's record key: one per endpoint, so that its events stay on one partition, in order. */
  key: string;
  timeoutMs: number;
}

/** The answer of a broker: confirmed (`delivered`) or the error, never thrown. */
export interface BrokerAnswer extends WebhookResponse {
  delivered: boolean;
}

/** One connection (a producer, an AMQP confirm channel) to one endpoint's broker. */
export interface BrokerSender {
  send(message: BrokerMessage): Promise<BrokerAnswer>;
  close(): Promise<void>;
}

export function failed(error: string): BrokerAnswer {
  return { delivered: false, statusCode: null, retryAfter: null, body: null, error };
}

export const CONFIRMED: BrokerAnswer = { delivered: true, statusCode: null, retryAfter: null, body: null, error: null };

/**
 * A broker's error text with the destination's credentials masked: an attempt's error is stored,
 * shown and logged, and a client library may quote the URL or the user it was given.
 */
export function masked(text: string, destination: BrokerDestination): string {
  const secrets: string[] = [];
  if (destination.type === 'kafka' && destination.sasl !== undefined)
    secrets.push(destination.sasl.password, destination.sasl.username);
  if (destination.type === 'sqs' && destination.access_key_id !== undefined)
    secrets.push(destination.secret_access_key!, destination.access_key_id);
  if (destination.type === 'rabbitmq') {
    try {
      const url = new URL(destination.url);
      for (const part of [url.password, url.username]) if (part !== '') secrets.push(part, decodeURIComponent(part));
    } catch {
      // a URL the schema let through but URL cannot read has no parts to mask
    }
  }
  let out = text;
  for (const secret of secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length))
    out = out.split(secret).join('***');
  return out;
}

/** Times an operation out with the attempt's timeout: the broker's client may wait longer on its own. */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
