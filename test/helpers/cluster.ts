// A cluster started by `gateway cluster` (the code behind `npm run cluster`, bin/gateway.js: build
// first) in a data dir of its own, on the shared test broker under a fresh namespace.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { ClusterLayout } from '../../src/cli/cluster-command.js';

export interface TestCluster {
  layout: ClusterLayout;
  child: ChildProcess;
  /** Resolves with the command's exit code. */
  exited: Promise<number | null>;
  /** Everything the command printed so far (every process's log lines). */
  output(): string;
  /** SIGTERM to the command (when it still runs), then removes the data dir. */
  stop(): Promise<void>;
}

/** Starts the cluster with `env` over the defaults and resolves once it prints `cluster ready`. */
export async function startCluster(prefix: string, env: Record<string, string>): Promise<TestCluster> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gateway-${prefix}-`));
  const child = spawn(process.execPath, ['bin/gateway.js', 'cluster'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_PORT: '0',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
      GATEWAY_KAFKA_NAMESPACE: `${prefix}-${process.pid}-${Date.now()}.`,
      GATEWAY_API_RATE_LIMIT_FACTOR: '1000',
      GATEWAY_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const layout = await new Promise<ClusterLayout>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"msg":"cluster ready"'));
      if (line !== undefined) resolve(JSON.parse(line) as ClusterLayout);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) =>
      reject(new Error(`gateway cluster exited (${code}) before it was ready:\n${output.slice(-4_000)}`)),
    );
  });
  return {
    layout,
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
