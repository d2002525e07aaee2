// The types of elasticmq.mjs, for the TypeScript tests.
import type { PrivateServer } from './private-server.mjs';

export interface ElasticMqOptions {
  /**
   * Where the queues and messages live: 'memory' (the default) or 'disk', an H2 file in the temp
   * dir, so that a stop and a start lose nothing already accepted.
   */
  storage?: 'memory' | 'disk';
}

/** A server: `start()` waits until it answers SQS requests. */
export interface ElasticMq extends PrivateServer {
  /** `http://127.0.0.1:<port>`: the SQS endpoint, and the origin of its queue URLs. */
  readonly endpoint: string;
}

/** Starts a server and waits until it answers; throws if Java, Maven or the jars are missing or it does not start. */
export function startElasticMq(options?: ElasticMqOptions): Promise<ElasticMq>;
