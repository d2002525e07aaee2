import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The node flags the daemon is started with (docs/operations.md, "Memory"), wherever it is started from. */
describe("the daemon's node flags", () => {
  it('are the same in npm start, bin/gateway.js, the Dockerfile and the benchmark', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    const fromStart = /node ((?:--\S+ )*)bin\/gateway\.js serve/.exec(start)?.[1]?.trim().split(' ');
    const fromShebang = /^#!\/usr\/bin\/env -S node ((?:--\S+ ?)*)\n/
      .exec(read('bin/gateway.js'))?.[1]
      ?.trim()
      .split(' ');
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    const fromDocker = (JSON.parse(cmd ?? '[]') as string[]).filter((arg) => arg.startsWith('--'));
    const fromBench = /DAEMON_NODE_FLAGS = (\[.*\]);/.exec(read('scripts/bench/suite/lib.mjs'))?.[1];
    const bench = JSON.parse((fromBench ?? '[]').replaceAll("'", '"')) as string[];
    expect(fromStart).toEqual(['--max-semi-space-size=8', '--heap-growing-percent=50']);
    expect(fromShebang).toEqual(fromStart);
    expect(fromDocker).toEqual(fromStart);
    expect(bench).toEqual(fromStart);
  });
});

describe('worker threads under the daemon flags', () => {
  it("size their young generation by their own resourceLimits, and the main thread's stays as the flag sets it", () => {
    // Both isolates allocate short-lived objects until their young generation has grown to its cap.
    const script = `
      import v8 from 'node:v8';
      import { startWorkerThread } from ${JSON.stringify(path.join(ROOT, 'dist/src/lib/threads.js'))};
      const churn = 'let keep = []; for (let i = 0; i < 3e6; i += 1) { keep.push({ i, s: "x" + i }); if (keep.length > 1000) keep = []; }';
      const youngMb = 'Math.round(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576)';
      const worker = startWorkerThread(new URL('data:text/javascript,' + encodeURIComponent("import v8 from 'node:v8'; import { parentPort } from 'node:worker_threads'; " + churn + ' parentPort.postMessage(' + youngMb + ');')), { resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 } });
      const workerYoung = await new Promise((resolve) => worker.once('message', resolve));
      await worker.terminate();
      eval(churn);
      console.log(JSON.stringify({ worker: workerYoung, main: eval(youngMb) }));`;
    const out = execFileSync(process.execPath, ['--max-semi-space-size=8', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ worker: 4, main: 16 });
  });
});
