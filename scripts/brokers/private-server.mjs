// What the private brokers (rabbitmq.mjs, elasticmq.mjs) share: a free port (the tests' and the
// bench's other processes take theirs here too), and a server of one caller alone, run as a child
// process that can be stopped and started again with the same command, its files in a temp dir
// removed with it, and stopped if this process exits before it is removed, so none outlives the
// tests or the bench.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** Cleanups of the brokers not removed yet: whatever ends this process runs them. */
const atExit = new Set();
process.once('exit', () => atExit.forEach((cleanup) => cleanup()));

/** Runs `cleanup` (synchronous) if this process exits first; the answer drops it again. */
function onProcessExit(cleanup) {
  atExit.add(cleanup);
  return () => atExit.delete(cleanup);
}

/** Where the kernel picks the local ports of outgoing connections (Linux's default when unreadable). */
function ephemeralRange() {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32768, 60999];
  }
}

/** Ports below the ephemeral range that freePort draws from. */
const LOWEST_FREE_PORT = 10_000;

/** Whether a loopback listen on `port` works now. */
function listens(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on now, for a process that must know its address before it
 * starts (a broker, a cluster's front, a core that keeps its port across restarts). It is drawn
 * below the kernel's ephemeral range: a port from that range can be taken by any outgoing
 * connection (a Kafka client's, say) between this answer and the process's listen.
 */
export async function freePort() {
  const [ephemeralLow] = ephemeralRange();
  const high = Math.max(LOWEST_FREE_PORT + 1_000, ephemeralLow) - 1;
  for (let tries = 0; tries < 100; tries += 1) {
    const port = LOWEST_FREE_PORT + Math.floor(Math.random() * (high - LOWEST_FREE_PORT + 1));
    if (await listens(port)) return port;
  }
  throw new Error(`no free loopback port found between ${LOWEST_FREE_PORT} and ${high}`);
}

/** Polls `check` until it answers true; throws naming `what` after `timeoutMs` (a ceiling). */
export async function waitFor(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How much of a server's output an error quotes: the end, where a failed start says why. */
const OUTPUT_KEPT = 4_000;

/**
 * `command args` run with `env` whenever `start()` is called: it resolves once `ready()` answers
 * true within `readyWithinMs`, and throws (with the end of the server's output) if the server
 * exits, cannot be spawned or is not ready by then. `stop()` sends SIGTERM and waits until the
 * process is gone; `kill()` only sends it, for an exit handler.
 */
function serverProcess({ name, command, args, env = process.env, ready, readyWithinMs }) {
  let child = null;
  let output = '';
  const keep = (chunk) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));

  return {
    /** The running server's pid (its CPU is read from it and its descendants), null when stopped. */
    get pid() {
      return child?.pid ?? null;
    },
    output: () => output,
    async start() {
      output = '';
      let spawnError = null;
      const started = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      started.once('error', (error) => (spawnError = error));
      started.stdout.on('data', keep);
      started.stderr.on('data', keep);
      child = started;
      try {
        await waitFor(
          `${name} ready`,
          async () => {
            if (spawnError !== null) throw spawnError;
            if (started.exitCode !== null) throw new Error(`${command} exited (${started.exitCode})`);
            return ready();
          },
          readyWithinMs,
        );
      } catch (error) {
        throw new Error(`${name} did not start: ${error.message}\n${output}`, { cause: error });
      }
    },
    async stop() {
      const running = child;
      child = null;
      if (running === null || running.exitCode !== null || running.signalCode !== null || running.pid === undefined)
        return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    kill() {
      child?.kill('SIGTERM');
    },
  };
}

/**
 * Starts a server (the options of serverProcess) whose files are in `dir`, and answers once it is
 * ready: its `pid`, `output()`, `stop()` (then `afterStop()`, which waits for what outlives the
 * process, a port still closing), `start()` again, and `remove()`, which stops it for good, runs
 * `leftovers()` (synchronous: stops what the server left running) and deletes `dir`. A server that
 * does not start is removed before the error is thrown.
 */
export async function startPrivateServer({ dir, afterStop = async () => {}, leftovers = () => {}, ...serverOptions }) {
  const server = serverProcess(serverOptions);
  const forgetAtExit = onProcessExit(() => {
    server.kill();
    leftovers();
  });
  const stop = async () => {
    await server.stop();
    await afterStop();
  };
  const remove = async () => {
    await stop();
    leftovers();
    forgetAtExit();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  await server.start().catch(async (error) => {
    await remove().catch(() => {});
    throw error;
  });
  return {
    get pid() {
      return server.pid;
    },
    output: server.output,
    stop,
    start: () => server.start(),
    remove,
  };
}
