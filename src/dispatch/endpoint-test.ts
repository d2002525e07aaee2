import { timeOrderedId } from '../lib/ids.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { signingSecrets } from '../domain/webhook-endpoints.js';
import type { WebhookHttpClient } from './http-client.js';
import { signatureHeaders } from './signing.js';

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
  ) {}

  /** `url` overrides the endpoint's own (a url about to be saved is checked before it is). */
  async send(
    endpoint: Pick<WebhookEndpointRow, 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
    url = endpoint.url,
  ): Promise<TestPostOutcome> {
    const id = timeOrderedId('test_', 10);
    const headers = signatureHeaders(id, new Date(), TEST_POST_BODY, signingSecrets(endpoint));
    const began = performance.now();
    const answer = await this.client.post({ url, headers, body: TEST_POST_BODY, timeoutMs: this.timeoutMs });
    return {
      webhook_id: id,
      url,
      success: answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300,
      status_code: answer.statusCode,
      duration_ms: Math.round(performance.now() - began),
      response_body: answer.body,
      error: answer.error,
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** One line on why a test POST did not succeed, for an error's detail. */
export function describeFailure(outcome: TestPostOutcome): string {
  return outcome.status_code !== null
    ? `answered HTTP ${outcome.status_code}`
    : `could not be reached (${outcome.error ?? 'no answer'})`;
}
