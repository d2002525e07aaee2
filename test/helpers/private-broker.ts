// A Kafka broker of one test file alone (scripts/kafka/kafka.sh on private ports and a private state
// dir), never the shared test broker on 19092 that other runs start and stop: tests that stop the
// broker on purpose run their own. It is stopped and started again on the same data, so that topics
// and committed offsets survive the outage as they would on a real cluster.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from './wait.js';

export interface PrivateBroker {
  /** `127.0.0.1:<port>`, for GATEWAY_KAFKA_BROKERS. */
  brokers: string;
  /** Stops the broker (SIGTERM, as an operator's restart does) and waits until its process is gone. */
  stop(): Promise<void>;
  /** Starts the same command line again, on the same data, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data. */
  remove(): Promise<void>;
}

/**
 * Starts a fresh broker on a random free-looking port pair (client port, controller port + 1).
 * `extraConfig` (given the PLAINTEXT port) adds server.properties lines, such as more listeners.
 */
export async function startPrivateBroker(
  prefix: string,
  extraConfig: (port: number) => string = () => '',
): Promise<PrivateBroker> {
  const port = 21000 + Math.floor(Math.random() * 4000) * 2;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    KAFKA_STATE_DIR: stateDir,
    KAFKA_LEASE: '',
    KAFKA_EXTRA_CONFIG: extraConfig(port),
  };
  const script = (command: 'start' | 'stop' | 'status'): Promise<void> =>
    new Promise((resolve, reject) =>
      execFile('bash', ['scripts/kafka/kafka.sh', command], { env }, (error, _out, stderr) =>
        error ? reject(new Error(`kafka.sh ${command}: ${stderr}`)) : resolve(),
      ),
    );
  const pidFile = path.join(stateDir, 'kafka.pid');
  await script('start');
  // The broker's own command line, read once while it runs: `start` of kafka.sh would format fresh data.
  const firstPid = Number(fs.readFileSync(pidFile, 'utf8'));
  const argv = fs
    .readFileSync(`/proc/${firstPid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');

  return {
    brokers: `127.0.0.1:${port}`,
    async stop() {
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      process.kill(pid, 'SIGTERM');
      await eventually('the broker process gone', () => !alive(pid), 60_000);
    },
    async start() {
      const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' });
      child.unref();
      fs.writeFileSync(pidFile, String(child.pid));
      await eventually(
        'the broker answering again',
        () =>
          script('status').then(
            () => true,
            () => false,
          ),
        90_000,
      );
    },
    async remove() {
      await script('stop').catch(() => {});
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
