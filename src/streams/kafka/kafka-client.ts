import { Kafka, logLevel } from 'kafkajs';
import type { Logger } from '../../log.js';
import { mendIdleRequestQueue } from './idle-request-queue.js';

mendIdleRequestQueue();

/**
 * A kafkajs client whose own log lines (warnings and errors only) go to `log`, and whose retries
 * come at most 1 s apart: once a broker is back, the next retry finds it within a second.
 */
export function kafkaClient(options: { clientId: string; brokers: string[]; retries?: number }, log: Logger): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }) => {
        const { message, ...rest } = entry;
        if (level <= logLevel.ERROR) log.error(rest, message);
        else log.warn(rest, message);
      },
    retry: { retries: options.retries ?? 8, initialRetryTime: 100, maxRetryTime: 1_000 },
  });
}
