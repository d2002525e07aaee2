/**
 * The stream contract shared by the embedded (SQLite) and the Kafka implementation. Both are
 * checked by one conformance suite (test/streams/conformance.ts).
 *
 * Semantics: at-least-once. A message handed to a handler is committed only after the handler
 * resolved; a consumer that dies (or a handler that throws) leaves it uncommitted, and it is handed
 * out again (after the claim lease in SQLite, after the group rebalance in Kafka). Messages of one
 * key reach the handler one at a time, in publish order; different keys run concurrently up to
 * `maxInFlight`, so a slow key never holds back the others. A message is never handed out before
 * its `notBefore`; later messages of its partition may wait behind it, so a delayed stream should
 * carry messages of about the same delay.
 */
export interface OutgoingMessage {
  key: string;
  /** Stable id: duplicates after a crash or a retried publish carry the same one. */
  id: string;
  value: unknown;
  /** The value's JSON text when the publisher made it already (JSON.stringify(value) otherwise). */
  json?: string;
  /** Unix ms; absent means now. */
  notBefore?: number;
  /**
   * The W3C trace context the message carries to its consumer (docs/tracing.md): given, or else
   * the publisher's active span; none while tracing is off.
   */
  traceparent?: string;
  /**
   * Its publisher makes it again after a restart from state of its own, committed no later than
   * the publish (a delivery's automatic attempt: the pending delivery row). The embedded stream may
   * then keep it in memory only; Kafka keeps every message.
   */
  recoverable?: true;
}

export interface IncomingMessage {
  stream: string;
  key: string;
  id: string;
  value: unknown;
  notBefore: number;
  /** The trace context it was published with, if any: its consumer's span continues that trace. */
  traceparent?: string;
}

/**
 * What a handler may answer instead of nothing: its message is committed only once `durable`
 * resolved (its own side effects written, e.g. an attempt record), while the next messages of its
 * key already run. Commits still follow the handlers' order within a key; a `durable` that rejects
 * leaves the message uncommitted (handed out again later, at-least-once).
 */
export interface CommitAfter {
  durable: Promise<void>;
}

export type MessageHandler = (message: IncomingMessage) => Promise<void | CommitAfter>;

export interface SubscribeOptions {
  stream: string;
  group: string;
  handler: MessageHandler;
  /** Messages in the handler at once (distinct keys). Default 32. */
  maxInFlight?: number;
  /**
   * Embedded streams only: takes a message kept in memory only (OutgoingMessage.recoverable) as
   * soon as it is committed, beside the per-key runner, when nothing of its key is queued or
   * running there; answers the end of its handling (what the runner would wait for before
   * committing it), or null to leave it to `handler`. A handling that rejects leaves the message
   * to its publisher's recovery, as a stop does with any message kept in memory only.
   */
  direct?: DirectHandler;
}

/** SubscribeOptions.direct: the end of a message's handling beside the runner, or null when declined. */
export type DirectHandler = (message: IncomingMessage) => Promise<void> | null;

export interface BatchSubscribeOptions {
  stream: string;
  group: string;
  /** Consecutive messages of one partition in stream order (so in order per key); committed once it resolves. */
  handler: (messages: readonly IncomingMessage[]) => Promise<void>;
  /** Most messages per handler call, except that a Kafka record carrying more is handed whole. Default 128. */
  maxBatch?: number;
}

export interface Subscription {
  /** Resolves once the consumer takes part in its group (Kafka: partitions assigned). */
  ready: Promise<void>;
  /** Stops fetching; handlers still running are abandoned uncommitted (as in a crash). */
  stop(): Promise<void>;
  /** Stops fetching, lets running handlers finish and commit, then stops (graceful shutdown). */
  drain(): Promise<void>;
}

export interface StreamBus {
  readonly kind: 'sqlite' | 'kafka';
  /** Creates the streams with their partition counts (Kafka); idempotent. */
  ensureStreams(streams: readonly StreamSpec[]): Promise<void>;
  /** Resolves once the stream durably acknowledged every message (Kafka: acks from all ISR). */
  publish(stream: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /**
   * Embedded streams only: appends the messages in the store transaction open on this thread (the
   * caller's) and answers what hands them to this process's consumers, to be called once it committed.
   */
  appendHere?(stream: string, messages: readonly OutgoingMessage[]): () => void;
  subscribe(options: SubscribeOptions): Subscription;
  /**
   * Kafka only: the handler takes runs of consecutive messages of a partition instead of one
   * message at a time (same at-least-once commit rule). Consumers that can do a run's work at once
   * use it when the bus has it, else `subscribe`.
   */
  subscribeBatches?(options: BatchSubscribeOptions): Subscription;
  /** Messages due and not yet committed per consumer group (the metrics' consumer lag). */
  lag?(positions: readonly StreamPosition[]): Promise<StreamLag[]>;
  /** Kafka only: the clients being replaced right now and how many were replaced (/healthz, metrics). */
  clientHealth?(): StreamClientHealth;
  close(): Promise<void>;
}

/** The kinds of stream client the bus replaces when they reach a state they cannot leave. */
export type StreamClientKind = 'producer' | 'consumer';

/**
 * The bus's clients as /healthz and the metrics show them: the ones being recreated now (from the
 * failure until the new one works again) and how many were closed and replaced since the start.
 */
export interface StreamClientHealth {
  recovering: { client: StreamClientKind; name: string; since: number; reason: string }[];
  recreated: Record<StreamClientKind, number>;
}

/** A consumer group's place on a stream. */
export interface StreamPosition {
  stream: string;
  group: string;
}

export interface StreamLag extends StreamPosition {
  messages: number;
}

export interface StreamSpec {
  name: string;
  partitions: number;
}

/** Time source of everything scheduled (not_before, retry schedule); tests drive their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private time = Date.now()) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Sleeps up to `ms` of real time; resolves early when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Settles as `promise` does, or resolves undefined once `signal` aborts, whichever comes first. Use
 * it instead of `Promise.race([promise, stopped])` with a promise that resolves on abort: every race
 * adds a reaction to that long-lived promise, kept until it settles, so a race per batch held about
 * 150 bytes per batch for the life of a subscription (87,529 reactions on one consumer's promise
 * after 90 s at 1,000 callbacks/s). This leaves an abort listener only while it waits.
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error); // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors -- the wrapped promise's own rejection, passed on as it is
      },
    );
  });
}

/**
 * Waits until `clock` reaches `at`, re-reading the clock often enough that a test clock moved by
 * hand is noticed quickly; `tick` runs between checks (Kafka heartbeats). Resolves false if aborted.
 */
export async function waitUntil(
  clock: Clock,
  at: number,
  signal: AbortSignal,
  tick?: () => Promise<void>,
): Promise<boolean> {
  while (clock.now() < at) {
    if (signal.aborted) return false;
    await pause(Math.min(Math.max(at - clock.now(), 1), 200), signal);
    if (tick) await tick().catch(() => {});
  }
  return !signal.aborted;
}
