import { timeOrderedId } from '../lib/ids.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { signingSecrets } from '../domain/webhook-endpoints.js';
import type { WebhookHttpClient } from './http-client.js';
import { signatureHeaders } from './signing.js';
import type { BrokerDestination } from '../../schemas/objects/destination.js';
import { brokerDestinationOf } from '../presenters/destination.js';
import { failed, type BrokerAnswer } from './destinations/destination.js';
import type { BrokerDestinations } from './destinations/pool.js';

/**
 * The test request an endpoint receives: the hosted service's documented check body, with our own
 * name as its source. The same bytes serve the activation check and the test on demand.
 */
export const TEST_POST_BODY = JSON.stringify({ source: 'gateway', operation: 'test' });

/** What one test POST came to; `success` is any 2xx answer, as for deliveries. */
export interface TestPostOutcome {
  webhook_id: string;
  url: string;
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  /** The first 4 KiB of the answer, as text. */
  response_body: string | null;
  /** Why no answer came: refused address, connection failure, timeout. */
  error: string | null;
}

/**
 * Sends the signed test POST to an endpoint's address, once and at once, and answers the outcome.
 * It is not a delivery: nothing is recorded, retried or counted toward the endpoint's health. The
 * address goes through the dispatcher's SSRF guard (the client's lookup) like every webhook.
 */
export class EndpointTester {
  constructor(
    private readonly client: WebhookHttpClient,
    private readonly timeoutMs: number,
    /** Where a broker endpoint's test message goes (src/dispatch/destinations/). */
    private readonly brokers?: BrokerDestinations,
  ) {}

  /**
   * `url` overrides the endpoint's own (a url about to be saved is checked before it is); for a
   * broker endpoint `destination` does (then `url` is its target without credentials). A broker
   * endpoint gets the same body and headers as a message, and succeeds once the broker confirms it.
   */
  async send(
    endpoint: Pick<
      WebhookEndpointRow,
      'id' | 'company_id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'type' | 'destination'
    >,
    url = endpoint.url,
    destination: BrokerDestination | undefined = brokerDestinationOf(endpoint),
  ): Promise<TestPostOutcome> {
    const id = timeOrderedId('test_', 10);
    const headers = signatureHeaders(id, new Date(), TEST_POST_BODY, signingSecrets(endpoint));
    const began = performance.now();
    const answer =
      destination === undefined
        ? await this.client.post({ url, headers, body: TEST_POST_BODY, timeoutMs: this.timeoutMs })
        : await this.publish(endpoint, destination, id, headers);
    const delivered = 'delivered' in answer && answer.delivered === true;
    return {
      webhook_id: id,
      url,
      success: delivered || (answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300),
      status_code: answer.statusCode,
      duration_ms: Math.round(performance.now() - began),
      response_body: answer.body,
      error: answer.error,
    };
  }

  private publish(
    endpoint: Pick<WebhookEndpointRow, 'id' | 'company_id'>,
    destination: BrokerDestination,
    id: string,
    headers: Record<string, string>,
  ): Promise<BrokerAnswer> {
    if (this.brokers === undefined) return Promise.resolve(failed('this gateway sends no broker destination'));
    const key = `${endpoint.company_id}:${endpoint.id}`;
    return this.brokers.send(endpoint.id, destination, {
      id,
      body: TEST_POST_BODY,
      headers,
      key,
      timeoutMs: this.timeoutMs,
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.client.close(), this.brokers?.close()]);
  }
}

/** One line on why a test POST did not succeed, for an error's detail. */
export function describeFailure(outcome: TestPostOutcome): string {
  return outcome.status_code !== null
    ? `answered HTTP ${outcome.status_code}`
    : `could not be reached (${outcome.error ?? 'no answer'})`;
}
