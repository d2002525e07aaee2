// A RabbitMQ node of one caller alone (Debian's rabbitmq-server, which .ci/run installs), for the
// RabbitMQ destination's tests and the bench's destination probe: its own node name, AMQP and
// distribution ports, Erlang port mapper, data, logs, config and Erlang cookie, all in a temp dir,
// no plugins. It can be stopped and started again on the same port and data (a broker outage), and
// is removed leaving nothing running. A node that is missing or cannot start throws, naming what to
// install or quoting the end of its output: a caller never runs without its broker.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqplib from 'amqplib';
import { freePort, startPrivateServer, waitFor } from './private-server.mjs';

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';

/** Starts a node; the types and options: rabbitmq.d.mts. */
export async function startRabbitmq({ prefix = 'rabbit', tls } = {}) {
  if (!fs.existsSync(SERVER)) throw new Error(`${SERVER} is missing: install Debian's rabbitmq-server (.ci/run does)`);
  const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
  const tlsPort = tls === undefined ? null : await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const url = `amqp://guest:guest@127.0.0.1:${port}/`;
  const accepts = () =>
    amqplib.connect(url).then(
      (model) => model.close().then(() => true),
      () => false,
    );
  const node = await startPrivateServer({
    dir,
    name: `the RabbitMQ node (${SERVER})`,
    command: SERVER,
    args: [],
    env: nodeEnvironment({
      dir,
      nodeName: `${prefix}-${path.basename(dir).replace(/[^A-Za-z0-9]/g, '')}@localhost`,
      port,
      distPort,
      epmdPort,
      tlsPort,
      tls,
    }),
    ready: accepts,
    readyWithinMs: 90_000,
    // The script waits for the Erlang VM; nothing listens on the AMQP port once it is gone.
    afterStop: () => waitFor('the RabbitMQ port closed', async () => !(await accepts()), 30_000),
    // The VM's port mapper outlives the node.
    leftovers: () => spawnSync('epmd', ['-port', String(epmdPort), '-kill'], { stdio: 'ignore' }),
  });
  return Object.assign(node, { url, port, tlsPort });
}

/** The node's files in `dir` and the environment that points rabbitmq-server at them. */
function nodeEnvironment({ dir, nodeName, port, distPort, epmdPort, tlsPort, tls }) {
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
  return {
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
}
