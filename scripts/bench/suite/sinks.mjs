// The processes that take what the daemons send: the webhook receiver and the OTLP/HTTP sink of a
// traced run, each in a process of its own, asked over IPC.
import { fork } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './lib.mjs';

/**
 * The OTLP/HTTP receiver of a traced run (scripts/bench/suite/otlp-sink.mjs, a process of its own):
 * `env` turns tracing on in a daemon started with it, at 100 % sampling, in `protocol`
 * (http/protobuf or http/json); `status()` answers the export requests, bytes and spans received.
 */
export async function startOtlpSink(protocol = 'http/protobuf') {
  const child = fork(path.join(ROOT, 'scripts/bench/suite/otlp-sink.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next();
  return {
    pid: child.pid,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_TRACES_SAMPLER: 'always_on',
    },
    status: () => {
      const answer = next();
      child.send({ type: 'status' });
      return answer;
    },
    async close() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await done;
    },
  };
}

/**
 * The webhook receiver (scripts/bench/suite/receiver.mjs) in its own process: it verifies every webhook
 * with its company's secret and measures callback → webhook. Send times are epoch ms
 * (performance.timeOrigin + performance.now()), comparable across the two processes.
 */
export async function startReceiver() {
  const child = fork(path.join(ROOT, 'scripts/bench/suite/receiver.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  let waiting = null;
  child.on('message', (message) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(message);
    } else replies.push(message);
  });
  const next = () =>
    replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((resolve) => (waiting = resolve));
  let queue = Promise.resolve();
  /** One request at a time over IPC, each answered by one message. */
  const ask = (message) => {
    const answer = queue.then(() => {
      child.send(message);
      return next();
    });
    queue = answer.catch(() => {});
    return answer;
  };
  const { port } = await next();
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    pid: child.pid,
    useCompanies: (companies) => ask({ type: 'secrets', secrets: companies.map((c) => c.webhookSecret) }),
    reset: () => ask({ type: 'reset' }),
    /** Endpoints (company indexes) that never answer (`hang`) or answer 500 (`fail`) from now on. */
    misbehave: ({ hang = [], fail = [] }) => ask({ type: 'behaviours', hang, fail }),
    expect: (accepted) => ask({ type: 'expect', expect: accepted }),
    status: () => ask({ type: 'status' }),
    /** Callback → webhook ms of the given message numbers that arrived, sorted. */
    latencies: async (of) =>
      (await ask({ type: 'latencies', of })).latencies.filter((l) => l !== null).sort((a, b) => a - b),
    /** Callback → webhook ms of each given message number, in the order given (null: not arrived). */
    latenciesOf: async (of) => (await ask({ type: 'latencies', of })).latencies,
    async close() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await done;
    },
  };
}
