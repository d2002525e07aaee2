// The types of private-server.mjs that the brokers' types (rabbitmq.d.mts, elasticmq.d.mts) share.

/** A server of one caller alone, started and ready. */
export interface PrivateServer {
  /** The running server's pid (its CPU is read from it and its descendants), null when stopped. */
  readonly pid: number | null;
  /** The end of the server's output since its last start. */
  output(): string;
  /** Stops the server (SIGTERM, as an operator's restart does) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and files, and waits until it is ready. */
  start(): Promise<void>;
  /** Stops it for good, with whatever it left running, and deletes its files. */
  remove(): Promise<void>;
}

/**
 * A loopback port nothing listens on now, drawn below the kernel's ephemeral range, where no
 * outgoing connection can take it before the process that asked listens on it.
 */
export function freePort(): Promise<number>;
