// A RabbitMQ node of one test file alone (Debian's rabbitmq-server, which .ci/run installs): its own
// node name, AMQP and distribution ports, Erlang port mapper, data, logs, config and Erlang cookie,
// all in a temp dir, the management plugin off. It is stopped and started again on the same port
// and data (a broker outage), and removed leaving nothing running. A node that cannot start fails
// the test loudly, with the end of its log.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'amqplib';
import type { TestCertificates } from './test-certificates.js';
import { eventually } from './wait.js';

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';

export interface RabbitmqNode {
  /** `amqp://guest:guest@localhost:<port>/`: the node's default user, which RabbitMQ lets in from loopback. */
  url: string;
  port: number;
  /** The amqps listener's port, when the node was started with certificates. */
  tlsPort: number | null;
  /** Stops the node (SIGTERM, as an operator's restart does) and waits until its process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it accepts AMQP. */
  start(): Promise<void>;
  /** Stops it for good, with its port mapper, and deletes its files. */
  remove(): Promise<void>;
}

/** A free TCP port on loopback (the kernel's choice, released at once). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `tls`: the node also listens for amqps, with the server certificate of these (no client certificates). */
export async function startRabbitmq(prefix = 'rabbit', tls?: TestCertificates): Promise<RabbitmqNode> {
  if (!fs.existsSync(SERVER))
    throw new Error(`${SERVER} is missing: install Debian's rabbitmq-server (.ci/run does) to run the RabbitMQ tests`);
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const tlsPort = tls === undefined ? null : await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, '.erlang.cookie'), `COOKIE${Math.random().toString(36).slice(2)}`, { mode: 0o400 });
  const configFile = path.join(dir, 'rabbitmq.conf');
  const tlsConfig =
    tls === undefined
      ? []
      : [
          `listeners.ssl.default = ${tlsPort}`,
          `ssl_options.cacertfile = ${tls.caFile}`,
          `ssl_options.certfile = ${tls.certFile}`,
          `ssl_options.keyfile = ${tls.keyFile}`,
          'ssl_options.verify = verify_none',
          'ssl_options.fail_if_no_peer_cert = false',
        ];
  fs.writeFileSync(
    configFile,
    [`listeners.tcp.default = ${port}`, 'loopback_users = none', ...tlsConfig, ''].join('\n'),
  );
  const pluginsFile = path.join(dir, 'enabled_plugins');
  fs.writeFileSync(pluginsFile, '[].\n');
  const nodeName = `${prefix}-${path.basename(dir).replace(/[^A-Za-z0-9]/g, '')}@localhost`;
  const env = {
    ...process.env,
    HOME: home,
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: configFile,
    RABBITMQ_ENABLED_PLUGINS_FILE: pluginsFile,
    RABBITMQ_ENABLED_PLUGINS: '',
    RABBITMQ_PID_FILE: path.join(dir, 'rabbit.pid'),
    RABBITMQ_ALLOW_INPUT: '',
  };
  const url = `amqp://guest:guest@localhost:${port}/`;
  let child: ChildProcess | null = null;
  let output = '';

  const accepts = async (): Promise<boolean> => {
    try {
      const model = await connect(url);
      await model.close();
      return true;
    } catch {
      return false;
    }
  };

  const start = async () => {
    output = '';
    const started = spawn(SERVER, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = started;
    try {
      await eventually(
        'the RabbitMQ node accepting AMQP',
        async () => {
          if (started.exitCode !== null) throw new Error(`rabbitmq-server exited (${started.exitCode})`);
          return accepts();
        },
        90_000,
      );
    } catch (error) {
      throw new Error(
        `the RabbitMQ node (${SERVER}) did not start: ${(error as Error).message}\n${output.slice(-3000)}`,
        { cause: error },
      );
    }
  };

  const stop = async () => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    // The script waits for the Erlang VM; nothing listens on the AMQP port once it is gone.
    await eventually('the RabbitMQ port closed', async () => !(await accepts()), 30_000);
  };

  await start().catch(async (error: unknown) => {
    await stop().catch(() => {});
    killEpmd(epmdPort);
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });

  return {
    url,
    port,
    tlsPort,
    stop,
    start,
    async remove() {
      await stop();
      killEpmd(epmdPort);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The port mapper the node's Erlang VM started on its private port. */
function killEpmd(port: number): void {
  spawnSync('epmd', ['-port', String(port), '-kill'], { stdio: 'ignore' });
}
