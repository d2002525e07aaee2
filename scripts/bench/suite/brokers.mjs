// The brokers of the destination probe besides the test Kafka broker (lib.mjs, testBroker): a
// private RabbitMQ node (Debian's rabbitmq-server) and an ElasticMQ server (SQS, its jars from
// scripts/elasticmq/elasticmq.sh), each on free ports with its files in a temp dir, started as the
// tests start theirs (test/helpers/rabbitmq.ts, test/helpers/elasticmq.ts) and removed leaving
// nothing running. A broker that is missing or does not start throws, naming what to install.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqplib from 'amqplib';
import { ROOT, freePort, sleep } from './lib.mjs';

const RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';

/** Polls `check` every 200 ms until it answers true; throws naming `what` after `timeoutMs`. */
async function waitFor(what, check, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Brokers running now: whatever ends this process, they are told to stop (SIGTERM: RabbitMQ's script stops its node). */
const running = new Set();
process.once('exit', () => running.forEach((stop) => stop()));

/** A broker process: its pid (CPU is read from it and its descendants) and its removal. */
function started(child, dir, output, onRemove = () => {}) {
  const stopAtExit = () => {
    child.kill('SIGTERM');
    onRemove();
  };
  running.add(stopAtExit);
  return {
    pid: child.pid,
    async remove() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      running.delete(stopAtExit);
      onRemove();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    output: () => output.text,
  };
}

/** Collects a child's stdout and stderr, the last 4,000 characters. */
function capture(child) {
  const output = { text: '' };
  const keep = (chunk) => (output.text = (output.text + chunk.toString()).slice(-4_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return output;
}

/** A RabbitMQ node of its own: `url` is its AMQP URL with the default user, which it lets in from loopback. */
export async function startRabbitmq() {
  if (!fs.existsSync(RABBITMQ_SERVER))
    throw new Error(`${RABBITMQ_SERVER} is missing: install Debian's rabbitmq-server (.ci/run does)`);
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-rabbit-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, '.erlang.cookie'), `COOKIE${Math.random().toString(36).slice(2)}`, { mode: 0o400 });
  fs.writeFileSync(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.default = ${port}\nloopback_users = none\n`);
  fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  const child = spawn(RABBITMQ_SERVER, [], {
    env: {
      ...process.env,
      HOME: home,
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_NODENAME: `bench-${path.basename(dir).replace(/[^A-Za-z0-9]/g, '')}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_ENABLED_PLUGINS: '',
      RABBITMQ_PID_FILE: path.join(dir, 'rabbit.pid'),
      RABBITMQ_ALLOW_INPUT: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  const url = `amqp://guest:guest@127.0.0.1:${port}/`;
  const node = started(child, dir, output, () =>
    spawnSync('epmd', ['-port', String(epmdPort), '-kill'], { stdio: 'ignore' }),
  );
  const accepts = () =>
    amqplib.connect(url).then(
      (model) => model.close().then(() => true),
      () => false,
    );
  try {
    await waitFor(
      'the RabbitMQ node accepting AMQP',
      () => {
        if (child.exitCode !== null) throw new Error(`rabbitmq-server exited (${child.exitCode})`);
        return accepts();
      },
      90_000,
    );
  } catch (error) {
    await node.remove();
    throw new Error(`the RabbitMQ node did not start: ${error.message}\n${output.text}`, { cause: error });
  }
  return { ...node, url };
}

/** An ElasticMQ server of its own, its queues in memory: `endpoint` is its SQS endpoint and the origin of its queue URLs. */
export async function startElasticMq() {
  const classpath = spawnSync('bash', [path.join(ROOT, 'scripts/elasticmq/elasticmq.sh'), 'classpath'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (classpath.status !== 0)
    throw new Error(
      `ElasticMQ is missing: scripts/elasticmq/elasticmq.sh classpath failed (needs Java 17+ and Maven):\n${classpath.stderr}`,
    );
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-elasticmq-'));
  const config = path.join(dir, 'server.conf');
  fs.writeFileSync(
    config,
    [
      'include classpath("application.conf")',
      `node-address { protocol = http, host = "127.0.0.1", port = ${port}, context-path = "" }`,
      `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
      'rest-stats { enabled = false }',
      '',
    ].join('\n'),
  );
  const child = spawn(
    'java',
    [
      '-Xmx256m',
      '-XX:TieredStopAtLevel=1',
      `-Dconfig.file=${config}`,
      '-cp',
      classpath.stdout.trim(),
      'org.elasticmq.server.Main',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = capture(child);
  const server = started(child, dir, output);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      'ElasticMQ answering',
      () => {
        if (child.exitCode !== null) throw new Error(`ElasticMQ exited (${child.exitCode})`);
        return fetch(`${endpoint}/?Action=ListQueues`).then(
          (r) => r.ok,
          () => false,
        );
      },
      60_000,
    );
  } catch (error) {
    await server.remove();
    throw new Error(`ElasticMQ did not start: ${error.message}\n${output.text}`, { cause: error });
  }
  return { ...server, endpoint };
}
