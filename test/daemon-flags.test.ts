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
    const fromShebang = /^#!\/usr\/bin\/env -S node ((?:--\S+ ?)*)\n/.exec(read('bin/gateway.js'))?.[1]?.trim().split(' ');
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    const fromDocker = (JSON.parse(cmd ?? '[]') as string[]).filter((arg) => arg.startsWith('--'));
    const fromBench = /DAEMON_NODE_FLAGS = (\[.*\]);/.exec(read('scripts/bench/lib.mjs'))?.[1];
    const bench = JSON.parse((fromBench ?? '[]').replaceAll("'", '"')) as string[];
    expect(fromStart).toEqual(['--max-semi-space-size=8', '--heap-growing-percent=50']);
    expect(fromShebang).toEqual(fromStart);
    expect(fromDocker).toEqual(fromStart);
    expect(bench).toEqual(fromStart);
  });
});
