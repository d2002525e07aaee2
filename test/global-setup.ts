// Vitest globalSetup: make sure a real single-node Kafka (KRaft) broker is
// running for the whole test run, via scripts/kafka/kafka.sh.
//
// - Reuses a broker that already answers on KAFKA_PORT (default 19092),
//   otherwise starts one. Each run holds a lease (KAFKA_LEASE=<runner pid>);
//   teardown releases it and the broker is stopped only if a test run started
//   it and no other concurrent run still holds a lease. A broker started by
//   hand (`npm run kafka start`) is left running.
// - If the broker cannot be started the whole run fails (tests are never
//   silently skipped).
// Tests get the bootstrap address with `inject('kafkaBrokers')` from 'vitest'.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
  }
}

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const kafkaScript = 'scripts/kafka/kafka.sh';

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const lease = String(process.pid);

function runKafkaScript(command: 'start' | 'release'): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [kafkaScript, command], {
      cwd: repoRoot,
      env: { ...process.env, KAFKA_LEASE: lease },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    // Progress messages (jar fetch, broker start) are shown live.
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function failureReason(result: RunResult): string {
  const lines = result.stderr.trim().split('\n');
  const errorLine = [...lines].reverse().find((l) => l.includes('ERROR:'));
  const status = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
  return `${errorLine ?? lines.at(-1) ?? 'no output'} (${status})`;
}

export default async function setup(project: TestProject) {
  const port = process.env.KAFKA_PORT ?? '19092';
  const brokers = `127.0.0.1:${port}`;

  const result = await runKafkaScript('start');
  if (result.code !== 0) {
    throw new Error(
      `Kafka test broker could not be started with \`bash ${kafkaScript} start\`: ${failureReason(result)}\n` +
        `Full output:\n${result.stderr}`,
    );
  }
  project.provide('kafkaBrokers', brokers);

  // Stops the broker only if this run started it ("started", not "reused") and
  // no concurrent run still uses it; see `release` in kafka.sh.
  return async () => {
    const released = await runKafkaScript('release');
    if (released.code !== 0) {
      throw new Error(`\`bash ${kafkaScript} release\` failed: ${failureReason(released)}`);
    }
  };
}
