import fs, { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const { options, ...ruleSet } = createRequire(import.meta.url)(path.join(repoRoot, '.dependency-cruiser.cjs'));

/** The rule violations of cruising `dirs` from `cwd` with the project's layer rules. */
async function violations(cwd: string, dirs: string[]): Promise<string[]> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const tsConfig = cwd === repoRoot ? options.tsConfig : undefined;
    const result = await cruise(
      dirs,
      { ...options, tsConfig, ruleSet, validate: true },
      { extensions: ['.ts', '.js'] },
    );
    const output = result.output as ICruiseResult;
    return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
  } finally {
    process.chdir(before);
  }
}

describe('the layer order of src/ (docs/architecture.md)', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'gateway-layers-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function write(file: string, text: string): void {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    writeFileSync(path.join(scratch, file), text);
  }

  it('holds in the tree: no import runs against it', async () => {
    expect(await violations(repoRoot, ['src', 'schemas'])).toEqual([]);
  });

  it('reports an upward import, a sideways import between stages or faces, and a type-only one', async () => {
    write('src/dispatch/policy.ts', 'export const retryAfter = 1;\n');
    write('src/ingest/verify.ts', 'export const verified = true;\n');
    write('src/api/lookup.ts', 'export const lookup = 1;\n');
    write(
      'src/store/rows.ts',
      "import { retryAfter } from '../dispatch/policy.js';\nexport const rows = retryAfter;\n",
    );
    write('src/outbox/relay.ts', "import { verified } from '../ingest/verify.js';\nexport const relayed = verified;\n");
    write('src/admin/routes.ts', "import { lookup } from '../api/lookup.js';\nexport const routes = lookup;\n");
    write('src/domain/rules.ts', "import type { Context } from '../http/context.js';\nexport type Rule = Context;\n");
    write('src/http/context.ts', 'export interface Context { id: number }\n');
    write(
      'src/cli/main.ts',
      "import { routes } from '../admin/routes.js';\nimport { rows } from '../store/rows.js';\nexport const main = [routes, rows];\n",
    );
    expect((await violations(scratch, ['src'])).sort()).toEqual([
      'domain-not-to-http: src/domain/rules.ts -> src/http/context.ts',
      'faces-apart: src/admin/routes.ts -> src/api/lookup.ts',
      'stages-apart: src/outbox/relay.ts -> src/ingest/verify.ts',
      'store-not-to-stages: src/store/rows.ts -> src/dispatch/policy.ts',
    ]);
  });

  it('reports an import against the rooms of the store and of the streams', async () => {
    const rooms = path.join(scratch, 'rooms');
    const put = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(rooms, file)), { recursive: true });
      writeFileSync(path.join(rooms, file), text);
    };
    put('src/store/store.ts', 'export const store = 1;\n');
    put('src/store/resources/webhooks.ts', 'export const webhooks = 1;\n');
    put(
      'src/store/deliveries/deliveries.ts',
      "import { webhooks } from '../resources/webhooks.js';\nexport const deliveries = webhooks;\n",
    );
    put(
      'src/store/pipeline/outbox.ts',
      "import { deliveries } from '../deliveries/deliveries.js';\nexport const outbox = deliveries;\n",
    );
    put(
      'src/store/engine/db.ts',
      "import { webhooks } from '../resources/webhooks.js';\nimport { store } from '../store.js';\nexport const db = [webhooks, store];\n",
    );
    put('src/streams/sqlite/sqlite-stream.ts', 'export const sqlite = 1;\n');
    put(
      'src/streams/kafka/kafka-stream.ts',
      "import { sqlite } from '../sqlite/sqlite-stream.js';\nexport const kafka = sqlite;\n",
    );
    put('src/streams/stream.ts', "import { kafka } from './kafka/kafka-stream.js';\nexport const stream = kafka;\n");
    const found = await violations(rooms, ['src']);
    expect(found.sort()).toEqual([
      'store-deliveries-and-pipeline-apart: src/store/pipeline/outbox.ts -> src/store/deliveries/deliveries.ts',
      'store-engine-not-to-store-resources: src/store/engine/db.ts -> src/store/resources/webhooks.ts',
      'store-engine-not-to-store-top: src/store/engine/db.ts -> src/store/store.ts',
      'stream-implementations-apart: src/streams/kafka/kafka-stream.ts -> src/streams/sqlite/sqlite-stream.ts',
      'streams-contract-not-to-streams-implementations: src/streams/stream.ts -> src/streams/kafka/kafka-stream.ts',
    ]);
  });
});

/**
 * Fixed sleeps in tests: a promise resolved by a timer, or node:timers/promises. A test waits for a
 * condition (eventually in test/helpers/wait.ts) or for a later marker instead; the sleeps left are
 * listed here, each with why, and a file may hold at most that many.
 */
const SLEEP = /setTimeout\(\s*(?:resolve|r)\s*,|setTimeout\(\s*\(\)\s*=>\s*(?:resolve|r)\(\)|node:timers\/promises/g;

const ALLOWED_SLEEPS: Record<string, { count: number; why: string }> = {
  'test/helpers/wait.ts': { count: 1, why: "eventually's poll interval" },
  'test/pipeline/startup.test.ts': { count: 1, why: 'polls /healthz while the gateway starts' },
  'test/streams/sqlite-fixtures.ts': { count: 1, why: 'the poll loop until()' },
  'test/streams/sqlite-log.test.ts': { count: 1, why: "an idle time longer than the group commit's gap, on purpose" },
  'test/streams/sqlite-recoverable.test.ts': { count: 1, why: 'the poll loop untilLag()' },
  'test/streams/conformance.ts': { count: 1, why: 'handlers of random length, to mix the order they finish in' },
  'test/security/auth-throttle.test.ts': { count: 2, why: "waits out the throttle's real-clock wait: what is tested" },
  'src/store/engine/checkpointer.test.ts': { count: 1, why: 'the quiet time the thread must stay silent over' },
  'src/store/engine/migrate.test.ts': { count: 1, why: 'polls until every worker has its connection open' },
  'src/store/engine/group-commit.test.ts': {
    count: 2,
    why: 'a unit queued part way into the gap: the timing is tested',
  },
  'src/connectors/connectors.test.ts': {
    count: 1,
    why: 'throttled calls last a moment, so overlapping ones would show',
  },
  'src/streams/kafka/kafka-producer.test.ts': { count: 1, why: 'the poll loop until()' },
  'test/faults/callback-load.ts': {
    count: 2,
    why: 'the fault suite paces its load, and waits out Retry-After as a provider would',
  },
  'test/faults/shard-faults.test.ts': { count: 2, why: 'a shard held down for its planned length' },
  'test/faults/kafka-faults.test.ts': {
    count: 2,
    why: 'outages held for their planned length (audited with test/faults)',
  },
  'test/faults/invariants.ts': {
    count: 2,
    why: 'polls until a read in flight is done, and between retried offset reads',
  },
};

/** The test sources: every file under test/, and the *.test.ts beside the code in src/. */
function testSources(dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testSources(file);
    return file.endsWith('.ts') && (dir.startsWith('test') || file.endsWith('.test.ts')) ? [file] : [];
  });
}

const sleepsIn = (text: string): number => text.match(SLEEP)?.length ?? 0;

describe('fixed sleeps in tests', () => {
  it('finds the forms of a sleep, and not a timer that does something', () => {
    expect(sleepsIn('await new Promise((resolve) => setTimeout(resolve, 300));')).toBe(1);
    expect(sleepsIn('await new Promise((r) => setTimeout(\n  r,\n  50));')).toBe(1);
    expect(sleepsIn('setTimeout(() => resolve(), 20);')).toBe(1);
    expect(sleepsIn("import { setTimeout as sleep } from 'node:timers/promises';")).toBe(1);
    expect(sleepsIn('setTimeout(() => request.destroy(), 50); setImmediate(resolve);')).toBe(0);
  });

  it('are only those listed, with why', () => {
    const files = [...testSources('test'), ...testSources('src')];
    expect(files).toContain('test/architecture.test.ts');
    expect(files).toContain('src/store/engine/checkpointer.test.ts');
    const over = files
      .map((file) => ({ file, count: sleepsIn(fs.readFileSync(path.join(repoRoot, file), 'utf8')) }))
      .filter(({ file, count }) => count > (ALLOWED_SLEEPS[file]?.count ?? 0) && file !== 'test/architecture.test.ts')
      .map(({ file, count }) => `${file}: ${count} (allowed ${ALLOWED_SLEEPS[file]?.count ?? 0})`);
    expect(over).toEqual([]);
    expect(Object.keys(ALLOWED_SLEEPS).filter((file) => !files.includes(file))).toEqual([]);
  });
});
