// An SQS-compatible server of one caller alone, for the SQS destination's tests and the bench's
// destination probe: ElasticMQ (scripts/elasticmq/elasticmq.sh fetches its jars from Maven Central)
// on a free port, with its files in a temp dir. Its queues and messages are kept in memory, or on
// disk (an H2 file) so that a stop and a start (a broker outage) lose nothing already accepted. It
// is removed leaving nothing running. Throws when Java, Maven or the jars are missing, or when the
// server does not start: a caller never runs without its broker.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startPrivateServer } from './private-server.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts a server; the types and options: elasticmq.d.mts. */
export async function startElasticMq({ storage = 'memory' } = {}) {
  const classpath = await elasticMqClasspath();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'elasticmq-'));
  const config = path.join(dir, 'server.conf');
  fs.writeFileSync(config, serverConfig(port, storage === 'disk' ? dir : null));
  const endpoint = `http://127.0.0.1:${port}`;
  const server = await startPrivateServer({
    dir,
    name: 'ElasticMQ',
    command: 'java',
    args: [
      '-Xmx256m',
      '-XX:TieredStopAtLevel=1',
      `-Dconfig.file=${config}`,
      '-cp',
      classpath,
      'org.elasticmq.server.Main',
    ],
    ready: () => answers(endpoint),
    readyWithinMs: 60_000,
  });
  return Object.assign(server, { endpoint });
}

/** The server's HOCON config: SQS on `port` with strict limits, its storage under `diskDir` when given. */
function serverConfig(port, diskDir) {
  const storage =
    diskDir === null
      ? []
      : [
          `queues-storage { enabled = true, path = "${path.join(diskDir, 'queues.conf')}" }`,
          `messages-storage { enabled = true, uri = "jdbc:h2:${path.join(diskDir, 'messages')}" }`,
        ];
  return [
    'include classpath("application.conf")',
    `node-address { protocol = http, host = "127.0.0.1", port = ${port}, context-path = "" }`,
    `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
    'rest-stats { enabled = false }',
    ...storage,
    '',
  ].join('\n');
}

/** The jars' classpath (fetched once into a cache); throws naming what to install when it fails. */
function elasticMqClasspath() {
  return new Promise((resolve, reject) =>
    execFile(
      'bash',
      [path.join(ROOT, 'scripts/elasticmq/elasticmq.sh'), 'classpath'],
      { cwd: ROOT },
      (error, stdout, stderr) =>
        error
          ? reject(
              new Error(
                `ElasticMQ is missing: scripts/elasticmq/elasticmq.sh classpath failed (needs Java 17+ and Maven):\n${stderr}`,
                { cause: error },
              ),
            )
          : resolve(stdout.trim()),
    ),
  );
}

/** Whether the server answers an SQS ListQueues. */
function answers(endpoint) {
  return fetch(`${endpoint}/?Action=ListQueues`).then(
    (response) => response.ok,
    () => false,
  );
}
