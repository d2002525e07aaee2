// An SQS-compatible server of one test file alone: ElasticMQ (scripts/elasticmq/elasticmq.sh fetches
// its jars from Maven Central) on a free port, its queues and messages kept in an H2 file under a
// temp dir, so that a stop and a start (a broker outage) lose nothing already accepted. Fails loudly
// when Java, Maven or the jars are missing: an SQS test never runs without its server.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';
import { eventually } from './wait.js';

export interface ElasticMq {
  /** `http://127.0.0.1:<port>`: the SQS endpoint, and the origin of its queue URLs. */
  endpoint: string;
  /** Stops the server (SIGTERM) and waits until its process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data. */
  remove(): Promise<void>;
}

export async function startElasticMq(): Promise<ElasticMq> {
  const classpath = await elasticMqClasspath();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'elasticmq-'));
  const config = path.join(dir, 'server.conf');
  fs.writeFileSync(config, serverConfig(port, dir));
  const endpoint = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let log = '';

  const start = async (): Promise<void> => {
    const started = spawn(
      'java',
      ['-Xmx256m', '-XX:TieredStopAtLevel=1', `-Dconfig.file=${config}`, '-cp', classpath, 'org.elasticmq.server.Main'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.stdout.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    started.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    child = started;
    await eventually(
      'ElasticMQ answering',
      async () => {
        if (started.exitCode !== null) throw new Error(`ElasticMQ exited with ${started.exitCode}:\n${log}`);
        return answers(endpoint);
      },
      60_000,
    );
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const gone = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await gone;
  };

  await start();
  return {
    endpoint,
    stop,
    start,
    async remove() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function serverConfig(port: number, dir: string): string {
  return [
    'include classpath("application.conf")',
    `node-address { protocol = http, host = "127.0.0.1", port = ${port}, context-path = "" }`,
    `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
    'rest-stats { enabled = false }',
    `queues-storage { enabled = true, path = "${path.join(dir, 'queues.conf')}" }`,
    `messages-storage { enabled = true, uri = "jdbc:h2:${path.join(dir, 'messages')}" }`,
    '',
  ].join('\n');
}

function elasticMqClasspath(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['scripts/elasticmq/elasticmq.sh', 'classpath'], (error, stdout, stderr) =>
      error ? reject(new Error(`elasticmq.sh classpath: ${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    return (await fetch(`${endpoint}/?Action=ListQueues`)).ok;
  } catch {
    return false;
  }
}
