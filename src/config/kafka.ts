import { parseDuration, splitList, type ReadSetting } from './settings.js';

/** Kafka mode's settings (docs/configuration.md, "Streams"); unset brokers mean embedded streams. */
export interface KafkaSettings {
  /** GATEWAY_KAFKA_BROKERS: comma-separated host:port list; unset means embedded streams in SQLite. */
  kafkaBrokers: string[] | null;
  /**
   * GATEWAY_KAFKA_NAMESPACE: prefix of every topic and consumer group (several installs on one
   * cluster). Default empty.
   */
  kafkaNamespace: string;
  /**
   * GATEWAY_KAFKA_SESSION_TIMEOUT: a consumer the group has not heard from for this long (a process
   * killed or frozen) is dropped, and its partitions go to the live members. 6s to 30m, the limits
   * a Kafka broker accepts by default. Default 10s.
   */
  kafkaSessionTimeoutMs: number;
  /** GATEWAY_KAFKA_HEARTBEAT_INTERVAL: how often consumers heartbeat, at most a third of the session timeout. Default 1s. */
  kafkaHeartbeatIntervalMs: number;
  /**
   * GATEWAY_KAFKA_LINGER: how long a publish made while no produce request is on its way waits for
   * others to share its request (Kafka's linger.ms); 0 to 1s. Default 5ms.
   */
  kafkaLingerMs: number;
}

/** The bounds a Kafka broker puts on a consumer's session timeout by default (group.min/max.session.timeout.ms). */
export const KAFKA_SESSION_TIMEOUT_RANGE_MS = { min: 6_000, max: 30 * 60_000 } as const;

/** Reads Kafka mode's settings; pushes one line per bad variable onto `problems`. */
export function readKafkaSettings(read: ReadSetting, problems: string[]): KafkaSettings {
  const brokersText = read('GATEWAY_KAFKA_BROKERS');
  const kafkaBrokers = brokersText === undefined ? null : splitList(brokersText);
  if (kafkaBrokers !== null) {
    const bad = kafkaBrokers.filter((b) => !/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/.test(b));
    if (kafkaBrokers.length === 0 || bad.length > 0) {
      problems.push(
        `GATEWAY_KAFKA_BROKERS must be a comma-separated list of host:port (bad: ${bad.join(', ') || 'empty'})`,
      );
    }
  }

  const kafkaNamespace = read('GATEWAY_KAFKA_NAMESPACE') ?? '';
  if (!/^[A-Za-z0-9._-]{0,100}$/.test(kafkaNamespace)) {
    problems.push(`GATEWAY_KAFKA_NAMESPACE may hold only letters, digits, '.', '_' and '-' (got "${kafkaNamespace}")`);
  }
  const lingerText = read('GATEWAY_KAFKA_LINGER');
  const kafkaLingerMs = lingerText === undefined ? DEFAULT_LINGER_MS : parseDuration(lingerText);
  if (kafkaLingerMs === null || kafkaLingerMs > 1_000) {
    problems.push(`GATEWAY_KAFKA_LINGER must be a duration up to 1s, such as 5ms, or 0 (got "${lingerText}")`);
  }
  return {
    kafkaBrokers,
    kafkaNamespace,
    kafkaLingerMs: kafkaLingerMs ?? DEFAULT_LINGER_MS,
    ...readConsumerTimings(read, problems),
  };
}

/**
 * Kafka's own default since 4.0 (KIP-1030). At a steady rate a publish then shares its request
 * with the publishes of the next 5 ms, so the producer, the broker and every consumer handle a
 * few times fewer requests per event; an event reaches its webhook up to 5 ms later.
 */
const DEFAULT_LINGER_MS = 5;

/**
 * The consumers' session timeout and heartbeat interval: together they bound how long the partitions
 * of a dead worker wait before a live one takes them.
 */
function readConsumerTimings(
  read: ReadSetting,
  problems: string[],
): Pick<KafkaSettings, 'kafkaSessionTimeoutMs' | 'kafkaHeartbeatIntervalMs'> {
  const sessionText = read('GATEWAY_KAFKA_SESSION_TIMEOUT');
  let session = sessionText === undefined ? 10_000 : parseDuration(sessionText);
  if (
    session === null ||
    session < KAFKA_SESSION_TIMEOUT_RANGE_MS.min ||
    session > KAFKA_SESSION_TIMEOUT_RANGE_MS.max
  ) {
    problems.push(`GATEWAY_KAFKA_SESSION_TIMEOUT must be a duration from 6s to 30m (got "${sessionText}")`);
    session = null;
  }
  const heartbeatText = read('GATEWAY_KAFKA_HEARTBEAT_INTERVAL');
  const heartbeat = heartbeatText === undefined ? 1_000 : parseDuration(heartbeatText);
  if (heartbeat === null || heartbeat < 100) {
    problems.push(`GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be a duration of at least 100ms (got "${heartbeatText}")`);
  } else if (session !== null && heartbeat * 3 > session) {
    problems.push(
      `GATEWAY_KAFKA_HEARTBEAT_INTERVAL must be at most a third of GATEWAY_KAFKA_SESSION_TIMEOUT (got ${heartbeat} ms against ${session} ms)`,
    );
  }
  return { kafkaSessionTimeoutMs: session ?? 10_000, kafkaHeartbeatIntervalMs: heartbeat ?? 1_000 };
}
