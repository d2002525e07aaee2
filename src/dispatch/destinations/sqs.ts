import http from 'node:http';
import https from 'node:https';
import { SendMessageCommand, SQSClient, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { isFifoQueue, type BrokerDestination } from '../../../schemas/objects/destination.js';
import type { SsrfGuard } from '../../net/ssrf.js';
import {
  CONFIRMED,
  failed,
  withTimeout,
  type BrokerAnswer,
  type BrokerMessage,
  type BrokerSender,
} from './destination.js';

type SqsDestination = Extract<BrokerDestination, { type: 'sqs' }>;

/**
 * Sends an endpoint's events to the company's SQS queue: the signed body as the message body, the
 * signature headers and the content type as String message attributes. An event is delivered once
 * SQS answered the SendMessage with its message id. On a FIFO queue each message carries a group
 * (the event's conversation when it has one, else the endpoint) and the event's id as its
 * deduplication id, so that a send retried after a lost answer is dropped by SQS within its window.
 *
 * The client talks to the queue URL's origin, through agents whose lookup is the SSRF guard's, with
 * the endpoint's access key or none (unsigned requests): never the gateway's own AWS credentials.
 */
export class SqsSender implements BrokerSender {
  private client: SQSClient | null = null;
  private readonly fifo: boolean;

  constructor(
    private readonly destination: SqsDestination,
    private readonly guard: SsrfGuard,
  ) {
    this.fifo = isFifoQueue(destination.queue_url);
  }

  async send(message: BrokerMessage): Promise<BrokerAnswer> {
    try {
      const client = (this.client ??= this.open());
      const command = new SendMessageCommand({
        QueueUrl: this.destination.queue_url,
        MessageBody: message.body,
        MessageAttributes: attributesOf(message.headers),
        ...(this.fifo ? { MessageGroupId: groupOf(message), MessageDeduplicationId: message.id } : {}),
      });
      const abort = new AbortController();
      const sent = await withTimeout(
        client.send(command, { abortSignal: abort.signal }),
        message.timeoutMs,
        'waiting for SQS',
      ).finally(() => abort.abort());
      if (sent.MessageId === undefined) throw new Error('SQS answered without a message id');
      return CONFIRMED;
    } catch (error) {
      return failed(`SQS: ${describe(error)}`);
    }
  }

  private open(): SQSClient {
    const url = new URL(this.destination.queue_url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    this.guard.checkLiteral(host);
    if (url.protocol === 'http:' && !this.guard.isAllowed(host))
      throw new Error(
        `plain http to ${host} is refused: only hosts GATEWAY_WEBHOOK_ALLOW_HOSTS names may be reached without TLS`,
      );
    const agent = { keepAlive: true, maxSockets: 4, lookup: this.guard.lookup };
    const { access_key_id: accessKeyId, secret_access_key: secretAccessKey } = this.destination;
    return new SQSClient({
      region: this.destination.region,
      endpoint: url.origin,
      maxAttempts: 1, // the gateway's retry policy retries, with its schedule and its attempt log
      requestHandler: { httpAgent: new http.Agent(agent), httpsAgent: new https.Agent(agent) },
      ...(accessKeyId !== undefined && secretAccessKey !== undefined
        ? { credentials: { accessKeyId, secretAccessKey } }
        : {
            credentials: { accessKeyId: '', secretAccessKey: '' },
            signer: { sign: (request) => Promise.resolve(request) },
          }),
    });
  }

  close(): Promise<void> {
    this.client?.destroy();
    this.client = null;
    return Promise.resolve();
  }
}

/** The webhook headers and the content type as String attributes (SQS allows 10 per message). */
function attributesOf(headers: Record<string, string>): Record<string, MessageAttributeValue> {
  const attributes: Record<string, MessageAttributeValue> = {
    'content-type': { DataType: 'String', StringValue: 'application/json' },
  };
  for (const [name, value] of Object.entries(headers)) attributes[name] = { DataType: 'String', StringValue: value };
  return attributes;
}

/**
 * A FIFO message's group: `conversation-<id>` for an event of a conversation (its object is the
 * conversation, or names it in `conversation_id`), else the endpoint's key, one group per endpoint.
 */
export function groupOf(message: Pick<BrokerMessage, 'body' | 'key'>): string {
  try {
    const event = JSON.parse(message.body) as { type?: unknown; object?: Record<string, unknown> };
    const object = event.object ?? {};
    const conversation = event.type === 'conversation' ? object.id : object.conversation_id;
    if (typeof conversation === 'number' || (typeof conversation === 'string' && /^[\w-]{1,64}$/.test(conversation)))
      return `conversation-${conversation}`;
  } catch {
    // a body that is not an event (none today) goes in the endpoint's group
  }
  return message.key;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { name?: string }).name;
  return code !== undefined && code !== 'Error' && !error.message.startsWith(code)
    ? `${code}: ${error.message}`
    : error.message;
}
