import net from 'node:net';
import tls from 'node:tls';
import { Kafka, logLevel, type ISocketFactory, type Producer, type SASLOptions } from 'kafkajs';
import type { BrokerDestination } from '../../../schemas/objects/destination.js';
import type { SsrfGuard } from '../../net/ssrf.js';
import { mendIdleRequestQueue } from '../../streams/kafka/idle-request-queue.js';
import {
  CONFIRMED,
  failed,
  withTimeout,
  type BrokerAnswer,
  type BrokerMessage,
  type BrokerSender,
} from './destination.js';

mendIdleRequestQueue();

type KafkaDestination = Extract<BrokerDestination, { type: 'kafka' }>;

/**
 * Publishes an endpoint's events on the company's Kafka topic: one record per event, keyed by the
 * endpoint (one partition: its order holds), the signature headers as record headers, acknowledged
 * by every in-sync replica (acks -1) through an idempotent producer with one request in flight. A
 * failed publish drops the producer: the next attempt connects afresh.
 */
export class KafkaSender implements BrokerSender {
  private producer: Promise<Producer> | null = null;

  constructor(
    private readonly destination: KafkaDestination,
    private readonly guard: SsrfGuard,
  ) {}

  async send(message: BrokerMessage): Promise<BrokerAnswer> {
    try {
      const producer = await withTimeout(
        (this.producer ??= this.connect(message.timeoutMs)),
        message.timeoutMs,
        'connecting to Kafka',
      );
      await withTimeout(
        producer.send({
          topic: this.destination.topic,
          acks: -1,
          timeout: message.timeoutMs,
          messages: [
            {
              key: message.key,
              value: message.body,
              headers: { ...message.headers, 'content-type': 'application/json' },
            },
          ],
        }),
        message.timeoutMs,
        'publishing to Kafka',
      );
      return CONFIRMED;
    } catch (error) {
      await this.close();
      return failed(`Kafka: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async connect(timeoutMs: number): Promise<Producer> {
    const { brokers, sasl, tls: tlsSettings } = this.destination;
    const kafka = new Kafka({
      clientId: 'gateway-destination',
      brokers,
      ssl:
        tlsSettings === undefined
          ? false
          : {
              ...(tlsSettings.ca === undefined ? {} : { ca: [tlsSettings.ca] }),
              ...(tlsSettings.servername === undefined ? {} : { servername: tlsSettings.servername }),
              rejectUnauthorized: tlsSettings.reject_unauthorized ?? true,
            },
      ...(sasl === undefined ? {} : { sasl: sasl as SASLOptions }),
      socketFactory: guardedSockets(this.guard),
      connectionTimeout: Math.min(timeoutMs, 10_000),
      requestTimeout: timeoutMs,
      // The engine retries (its schedule, recorded attempts): the client tries a little only.
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
      // Its errors come back as the attempt's error; its log lines could name the company's hosts.
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    try {
      await producer.connect();
    } catch (error) {
      this.producer = null;
      throw error;
    }
    return producer;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    if (producer === null) return;
    await producer.then((p) => p.disconnect()).catch(() => {});
  }
}

/**
 * Sockets to the brokers through the SSRF guard: the bootstrap brokers and every broker their
 * metadata names. A name is checked on the address it resolves to; a refused IP literal gets a
 * socket that fails at once, so the attempt fails naming the range.
 */
function guardedSockets(guard: SsrfGuard): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const refusal = guard.refusalOf(host);
    if (refusal !== null) {
      const socket = new net.Socket();
      process.nextTick(() => socket.destroy(refusal));
      return socket;
    }
    const socket = ssl
      ? tls.connect(
          { host, port, lookup: guard.lookup, ...(net.isIP(host) ? {} : { servername: host }), ...ssl },
          onConnect,
        )
      : net.connect({ host, port, lookup: guard.lookup }, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}
