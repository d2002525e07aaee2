// The types of rabbitmq.mjs, for the TypeScript tests.
import type { PrivateServer } from './private-server.mjs';

export interface RabbitmqOptions {
  /** Starts the node's name and its temp dir's ('rabbit' unless given). */
  prefix?: string;
  /** The node also listens for amqps with this server certificate (no client certificates asked). */
  tls?: { caFile: string; certFile: string; keyFile: string };
}

/** A node: `stop()` waits until its AMQP port is closed, `start()` until it accepts AMQP; `remove()` stops its port mapper. */
export interface RabbitmqNode extends PrivateServer {
  /** `amqp://guest:guest@127.0.0.1:<port>/`: the node's default user, which it lets in from loopback. */
  readonly url: string;
  readonly port: number;
  /** The amqps listener's port, when the node was started with `tls`. */
  readonly tlsPort: number | null;
}

/** Starts a node and waits until it accepts AMQP; throws if rabbitmq-server is missing or does not start. */
export function startRabbitmq(options?: RabbitmqOptions): Promise<RabbitmqNode>;
