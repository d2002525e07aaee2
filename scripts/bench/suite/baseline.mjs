// The baseline of every ratio, bare Koa, and the processes of the same shape that the floors run
// in (floor-koa.mjs, floor-complete.mjs): started on a free port, loaded at maximum rate.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, ROOT } from './lib.mjs';
import { maxRate } from './load.mjs';
import { cpuMsOf, sampleMachine } from './proc-stats.mjs';

/** The load of the bare-Koa baseline: every request to one path (bare Koa reads and parses the body, whatever the path). */
export const BARE_TARGETS = [{ callbackPath: '/callbacks/chat_b/1', secretToken: 'none' }];

/**
 * The baseline of every ratio: bare Koa at maximum rate after a warm-up, with what a request cost
 * each side (bare Koa and this process, the load generator) and the machine's CPU shares meanwhile.
 * `handler` starts another handler script instead (startBareKoa), `targets` spreads the load over
 * other paths, `cpuProf` writes the handler's .cpuprofile into that directory.
 */
export async function measureBare({ warmSeconds, seconds, handler = [], targets = BARE_TARGETS, cpuProf = null }) {
  const bare = await startBareKoa(cpuProf, handler);
  try {
    const warm = await maxRate({ base: bare.base, companies: targets, seconds: warmSeconds });
    const [b0, g0] = [cpuMsOf(bare.pid), cpuMsOf(process.pid)];
    const machine = sampleMachine();
    const result = await maxRate({ base: bare.base, companies: targets, seconds });
    const perRequest = (ms) => (ms * 1000) / result.total;
    // `handled`: every request of the process's life, the units of its .cpuprofile (profile-categories.mjs).
    return {
      ...result,
      handled: warm.total + result.total,
      machine: machine.stop().whole,
      bareUs: perRequest(cpuMsOf(bare.pid) - b0),
      loadUs: perRequest(cpuMsOf(process.pid) - g0),
    };
  } finally {
    await bare.stop();
  }
}

/**
 * Starts the bare-Koa baseline process, or with `handler` another handler of the same shape:
 * `[script, ...args]`, its path relative to scripts/bench, started as `node <script> <port> ...args` (floors/floor-koa.mjs).
 */
export async function startBareKoa(cpuProf = null, handler = []) {
  const port = await freePort();
  // BENCH_FLOOR_NODE_ARGS: node flags for the baseline and the floors only (e.g. --trace-gc); what
  // they print after the start goes to the bench's stderr.
  const nodeArgs = [
    ...(process.env.BENCH_FLOOR_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []),
  ];
  const [script = 'suite/bare-koa.mjs', ...args] = handler;
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(ROOT, 'scripts/bench', script), String(port), ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', () => reject(new Error(`${script} exited during start`)));
  });
  child.stdout.pipe(process.stderr);
  return {
    pid: child.pid,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
    },
  };
}
