// A `gateway serve` process started from the built command (bin/gateway.js, dist/), as an operator
// runs it: its output kept for the test to read, and the signals a test sends it (SIGKILL for a
// crash, SIGSTOP/SIGCONT for a process frozen longer than its group's session timeout).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve('bin/gateway.js');

export type GatewayRole = 'all' | 'core' | 'worker' | 'front';

export interface GatewayProcess {
  readonly role: GatewayRole;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** The port of its HTTP server, from its start line (`null`: a worker without GATEWAY_WORKER_PORT). */
  readonly port: number | null;
  /** Resolves once `text` appears in the output after `from` (an earlier output().length); fails after `timeoutMs` with the output's tail. */
  waitFor(text: string, timeoutMs: number, from?: number): Promise<void>;
  /** SIGKILL, and resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful shutdown), and resolves with the exit code once it is gone. */
  stop(): Promise<number | null>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the process. */
  freeze(): void;
  thaw(): void;
}

/**
 * Starts `gateway serve --role <role>` with exactly `env` (plus PATH, HOME and API rate limits a
 * thousand times the documented ones, which `env` may override) and waits for its
 * start line: `gateway listening` for a role with an HTTP server, `worker started` for a worker.
 */
export async function startGatewayProcess(
  role: GatewayRole,
  env: Record<string, string>,
  startTimeoutMs = 60_000,
): Promise<GatewayProcess> {
  const args = role === 'all' ? [BIN, 'serve'] : [BIN, 'serve', '--role', role];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_API_RATE_LIMIT_FACTOR: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString();
    listeners.forEach((listener) => listener());
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('exit', () => listeners.forEach((listener) => listener()));

  const waitFor = (wanted: string, timeoutMs: number, from = 0) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (text.indexOf(wanted, from) >= 0) return done(null);
        if (child.exitCode !== null || child.signalCode !== null)
          done(
            new Error(
              `gateway ${role} exited (${child.exitCode ?? child.signalCode}) before "${wanted}":\n${text.slice(-4_000)}`,
            ),
          );
      };
      const timer = setTimeout(
        () => done(new Error(`gateway ${role}: no "${wanted}" within ${timeoutMs} ms:\n${text.slice(-4_000)}`)),
        timeoutMs,
      );
      function done(error: Error | null) {
        clearTimeout(timer);
        listeners.delete(check);
        if (error === null) resolve();
        else reject(error);
      }
      listeners.add(check);
      check();
    });

  const gone = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const startLine = role === 'worker' ? '"worker started"' : '"gateway listening"';
  await waitFor(startLine, startTimeoutMs);
  const { port } = JSON.parse(text.split('\n').find((line) => line.includes(startLine))!) as { port: number | null };
  return {
    role,
    child,
    port,
    output: () => text,
    waitFor,
    kill: async () => void (await gone('SIGKILL')),
    stop: async () => {
      child.kill('SIGCONT'); // a frozen process cannot shut down
      return gone('SIGTERM');
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
  };
}
