// The processes that take what the daemons send: the webhook receiver, the consumer of a broker
// destination and the OTLP/HTTP sink of a traced run, each in a process of its own, asked over IPC.
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
  const { child, ask, next, sink } = forkSink('receiver.mjs', []);
  const { port } = await next();
  return {
    ...sink,
    url: `http://127.0.0.1:${port}/hooks`,
    /** Endpoints (company indexes) that never answer (`hang`) or answer 500 (`fail`) from now on. */
    misbehave: ({ hang = [], fail = [] }) => ask({ type: 'behaviours', hang, fail }),
    pid: child.pid,
  };
}

/**
 * The consumer of a broker destination (scripts/bench/suite/broker-sink.mjs) in its own process,
 * asked as the receiver is: `type` kafka, rabbitmq or sqs, `count` companies, `target` the
 * brokers, the AMQP URL or the SQS endpoint. `settings[c]` is company <c>'s endpoint settings.
 */
export async function startBrokerSink(type, count, target) {
  const { child, next, sink } = forkSink('broker-sink.mjs', [type, String(count), target]);
  const { settings } = await next();
  return { ...sink, settings, pid: child.pid };
}

/**
 * A sink process speaking arrivals.mjs's requests, one at a time over IPC, each answered by one
 * message. If it ends, every request waiting and every later one throws: a sink that crashed
 * (a broker gone) fails the run instead of stalling it.
 */
function forkSink(script, args) {
  const child = fork(path.join(ROOT, 'scripts/bench/suite', script), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  let waiting = null;
  let ended = null;
  child.on('message', (message) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w.resolve(message);
    } else replies.push(message);
  });
  child.on('exit', (code, signal) => {
    ended = new Error(`${script} ended (${signal ?? code})`);
    waiting?.reject(ended);
    waiting = null;
  });
  const next = () => {
    if (replies.length > 0) return Promise.resolve(replies.shift());
    if (ended) return Promise.reject(ended);
    return new Promise((resolve, reject) => (waiting = { resolve, reject }));
  };
  let queue = Promise.resolve();
  const ask = (message) => {
    const answer = queue.then(() => {
      if (ended) throw ended;
      child.send(message);
      return next();
    });
    queue = answer.catch(() => {});
    return answer;
  };
  const sink = {
    /** The companies' secrets by index (and their ids, which the Kafka consumer reads from record keys). */
    useCompanies: (companies) =>
      ask({
        type: 'secrets',
        secrets: companies.map((c) => c.webhookSecret),
        companyIds: companies.map((c) => c.companyId),
      }),
    reset: () => ask({ type: 'reset' }),
    expect: (accepted) => ask({ type: 'expect', expect: accepted }),
    status: () => ask({ type: 'status' }),
    /** Callback → arrival ms of the given message numbers that arrived, sorted. */
    latencies: async (of) =>
      (await ask({ type: 'latencies', of })).latencies.filter((l) => l !== null).sort((a, b) => a - b),
    /** Callback → arrival ms of each given message number, in the order given (null: not arrived). */
    latenciesOf: async (of) => (await ask({ type: 'latencies', of })).latencies,
    async close() {
      if (ended) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' });
      await done;
    },
  };
  return { child, ask, next, sink };
}
