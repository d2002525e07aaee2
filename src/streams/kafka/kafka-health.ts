import type { Logger } from '../../log.js';
import type { StreamClientHealth, StreamClientKind } from '../stream.js';

/**
 * Broker answers after which a producer can never send again as it is: its producer id, epoch or
 * sequence numbers no longer match what the broker holds, and kafkajs neither retries them nor
 * starts over by itself. Only a new producer (a new producer id from InitProducerId) gets out.
 */
export const FATAL_PRODUCER_ERRORS: ReadonlySet<string> = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'INVALID_PRODUCER_EPOCH',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_PRODUCER_ID_MAPPING',
  'PRODUCER_FENCED',
]);

/**
 * The Kafka protocol error types of `error` and of the errors in its `cause` chain, outermost first
 * (kafkajs wraps the broker's answer in KafkaJSNonRetriableError or KafkaJSNumberOfRetriesExceeded).
 */
export function protocolErrorTypes(error: unknown): string[] {
  const types: string[] = [];
  for (
    let current = error, depth = 0;
    current instanceof Error && depth < 10;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const type = (current as { type?: unknown }).type;
    if (typeof type === 'string') types.push(type);
  }
  return types;
}

/** The fatal producer error type `error` carries, or null when it is not one. */
export function fatalProducerError(error: unknown): string | null {
  return protocolErrorTypes(error).find((type) => FATAL_PRODUCER_ERRORS.has(type)) ?? null;
}

/** A short text of an error for logs and /healthz: its protocol type when it has one, else its message. */
export function errorReason(error: unknown): string {
  const type = protocolErrorTypes(error)[0];
  if (type !== undefined) return type;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The clients of one Kafka bus that are being recreated, and how many were closed and replaced.
 * A client reports `recovering` when it failed in a way it cannot leave in place (its replacement
 * is under way from then on), `recreated` when the old one was closed for a new one, and
 * `recovered` once the new one works (a producer sent, a consumer joined its group).
 */
export class KafkaClientHealth {
  private readonly recoveringNow = new Map<
    string,
    { client: StreamClientKind; name: string; since: number; reason: string }
  >();
  private readonly recreatedCount: Record<StreamClientKind, number> = { producer: 0, consumer: 0 };

  constructor(private readonly logger: Logger) {}

  recovering(client: StreamClientKind, name: string, reason: string): void {
    const key = `${client}:${name}`;
    const known = this.recoveringNow.get(key);
    if (known !== undefined) {
      known.reason = reason;
      return;
    }
    this.recoveringNow.set(key, { client, name, since: Date.now(), reason });
  }

  recreated(client: StreamClientKind, name: string, reason: string): void {
    this.recreatedCount[client] += 1;
    this.logger.warn(
      { client, name, reason, recreated: this.recreatedCount[client] },
      `kafka ${client} closed and recreated`,
    );
  }

  recovered(client: StreamClientKind, name: string): void {
    const key = `${client}:${name}`;
    const known = this.recoveringNow.get(key);
    if (known === undefined) return;
    this.recoveringNow.delete(key);
    this.logger.info({ client, name, recovering_ms: Date.now() - known.since }, `kafka ${client} works again`);
  }

  snapshot(): StreamClientHealth {
    return {
      recovering: [...this.recoveringNow.values()].map((r) => ({ ...r })),
      recreated: { ...this.recreatedCount },
    };
  }
}
