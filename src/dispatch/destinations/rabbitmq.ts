import net from 'node:net';
import { connect, type ChannelModel, type ConfirmChannel, type Message } from 'amqplib';
import type { BrokerDestination } from '../../../schemas/objects/destination.js';
import type { SsrfGuard } from '../../net/ssrf.js';
import {
  CONFIRMED,
  failed,
  withTimeout,
  type BrokerAnswer,
  type BrokerMessage,
  type BrokerSender,
} from './destination.js';

type RabbitmqDestination = Extract<BrokerDestination, { type: 'rabbitmq' }>;

interface Open {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** Why the channel or the connection closed, once it did: the error of the publishes in flight. */
  closedBy: Error | null;
  /** Message ids the broker returned as unroutable, until their confirm comes. */
  returned: Set<string>;
}

/**
 * Publishes an endpoint's events on the company's RabbitMQ exchange through a confirm channel: an
 * event is delivered once the broker confirmed it (publisher confirms, always), persistent, with
 * the event's id as the AMQP messageId and the signature headers as headers. A message no queue
 * takes (published `mandatory`, returned by the broker) is a failed attempt, not a silent loss. A
 * closed channel or connection is opened again at the next attempt.
 */
export class RabbitmqSender implements BrokerSender {
  private open: Promise<Open> | null = null;

  constructor(
    private readonly destination: RabbitmqDestination,
    private readonly guard: SsrfGuard,
  ) {}

  async send(message: BrokerMessage): Promise<BrokerAnswer> {
    try {
      const open = await withTimeout(
        (this.open ??= this.connect(message.timeoutMs)),
        message.timeoutMs,
        'connecting to RabbitMQ',
      );
      await withTimeout(this.publish(open, message), message.timeoutMs, 'waiting for the RabbitMQ confirm');
      return CONFIRMED;
    } catch (error) {
      await this.close();
      return failed(`RabbitMQ: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private publish(open: Open, message: BrokerMessage): Promise<void> {
    const { exchange = '', routing_key: routingKey } = this.destination;
    return new Promise((resolve, reject) => {
      open.channel.publish(
        exchange,
        routingKey,
        Buffer.from(message.body),
        {
          messageId: message.id,
          contentType: 'application/json',
          persistent: true,
          mandatory: true,
          timestamp: Math.floor(Date.now() / 1000),
          headers: message.headers,
        },
        (error: unknown) => {
          const unroutable = open.returned.delete(message.id);
          if (error !== null && error !== undefined) reject(open.closedBy ?? toError(error));
          else if (unroutable)
            reject(new Error(`exchange "${exchange}" routed the message to no queue (routing key "${routingKey}")`));
          else resolve();
        },
      );
    });
  }

  private async connect(timeoutMs: number): Promise<Open> {
    const url = new URL(this.destination.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    try {
      this.guard.checkLiteral(host);
      const model = await connect(this.destination.url, {
        lookup: this.guard.lookup,
        timeout: Math.min(timeoutMs, 10_000),
        ...(net.isIP(host) ? {} : { servername: host }),
      });
      const open: Open = {
        model,
        channel: undefined as unknown as ConfirmChannel,
        closedBy: null,
        returned: new Set(),
      };
      const lost = (error?: Error) => {
        open.closedBy ??= error ?? new Error('the connection closed');
        if (this.open !== null)
          void this.open.then(
            (current) => current === open && (this.open = null),
            () => {},
          );
      };
      model.on('error', lost);
      model.on('close', lost);
      open.channel = await model.createConfirmChannel();
      open.channel.on('error', lost);
      open.channel.on('close', () => lost(new Error('the channel closed')));
      open.channel.on('return', (returned: Message) => {
        const id = returned.properties.messageId as unknown;
        if (typeof id === 'string') open.returned.add(id);
      });
      return open;
    } catch (error) {
      this.open = null;
      throw error;
    }
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = null;
    if (open === null) return;
    await open.then((o) => o.model.close()).catch(() => {});
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
