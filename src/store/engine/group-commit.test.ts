import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './db.js';
import { GroupCommit } from './group-commit.js';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
  db = openDatabase(path.join(dir, 'test.db'));
  db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const values = (): string[] =>
  db
    .prepare<[], { v: string }>('SELECT v FROM t ORDER BY v')
    .all()
    .map((r) => r.v);
const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);

describe('GroupCommit', () => {
  it('commits the units of one turn together; a unit that throws undoes only its own writes', async () => {
    const group = new GroupCommit(db);
    const ok = group.run(insert('a'));
    const failing = group.run(() => {
      insert('b')();
      throw new Error('no');
    });
    const duplicate = group.run(insert('a'));
    const last = group.run(() => {
      insert('c')();
      return 'done';
    });
    await expect(ok).resolves.toMatchObject({ changes: 1 });
    await expect(failing).rejects.toThrow('no');
    await expect(duplicate).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await expect(last).resolves.toBe('done');
    expect(values()).toEqual(['a', 'c']);
    expect(db.inTransaction).toBe(false);
  });

  it('runs a one-statement unit without a savepoint: a failing statement undoes only itself, and the other units commit', async () => {
    const group = new GroupCommit(db);
    const ok = group.runStatement(insert('a'));
    const duplicate = group.runStatement(insert('a'));
    // No savepoint: what a unit wrote before its failing statement stays. Hence one statement only.
    const twoStatements = group.runStatement(() => {
      insert('x')();
      insert('a')();
    });
    const other = group.run(insert('b'));
    await expect(ok).resolves.toMatchObject({ changes: 1 });
    await expect(duplicate).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await expect(twoStatements).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    await expect(other).resolves.toMatchObject({ changes: 1 });
    expect(values()).toEqual(['a', 'b', 'x']);
    expect(db.inTransaction).toBe(false);
  });

  it('resolves a unit only once its transaction is committed', async () => {
    const group = new GroupCommit(db);
    const pending = group.run(insert('a'));
    // Not yet run: queued for the next turn of the event loop.
    expect(values()).toEqual([]);
    await pending;
    // Another connection sees it: committed, not just written.
    const other = openDatabase(path.join(dir, 'test.db'));
    try {
      expect(other.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    } finally {
      other.close();
    }
  });

  it('runs at most maxBatch units per transaction and the rest in the next', async () => {
    const group = new GroupCommit(db, 2, 0);
    const other = openDatabase(path.join(dir, 'test.db'));
    const committed: number[] = [];
    try {
      const units = ['a', 'b', 'c'].map((v) =>
        group.run(() => {
          committed.push(other.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n);
          insert(v)();
        }),
      );
      await Promise.all(units);
    } finally {
      other.close();
    }
    expect(values()).toEqual(['a', 'b', 'c']);
    // 'c' ran in a transaction of its own, after the one of 'a' and 'b' was committed.
    expect(committed).toEqual([0, 0, 2]);
  });

  it('commits at once when idle; under load, units of the next minGapMs share one transaction', async () => {
    const gapMs = 60;
    const group = new GroupCommit(db, 256, gapMs);
    const ranAt: Record<string, number> = {};
    const unit = (v: string) => () => {
      ranAt[v] = performance.now();
      insert(v)();
    };

    const idleStart = performance.now();
    await group.run(unit('a'));
    const committedAt = performance.now();
    expect(ranAt.a! - idleStart).toBeLessThan(gapMs / 2);

    // Right after a commit: 'b' waits for the gap, and 'c', queued later, joins its transaction
    // (both run in the same synchronous flush: no turn of the event loop passes between them).
    let turned = false;
    const b = group.run(() => {
      unit('b')();
      setImmediate(() => (turned = true));
    });
    // 'c' comes part way into the gap: the timing is what is tested.
    await new Promise((resolve) => setTimeout(resolve, 10));
    let turnedBeforeC: boolean | undefined;
    const c = group.run(() => {
      turnedBeforeC = turned;
      unit('c')();
    });
    await Promise.all([b, c]);
    expect(ranAt.b! - committedAt).toBeGreaterThanOrEqual(gapMs - 2);
    expect(turnedBeforeC).toBe(false);
    expect(values()).toEqual(['a', 'b', 'c']);
  });

  it('starts the transaction of an urgent unit in the next turn, gap or not, with the units queued behind the gap', async () => {
    const gapMs = 200;
    const group = new GroupCommit(db, 256, gapMs);
    await group.run(insert('a'));
    const committedAt = performance.now();

    // Right after a commit: 'b' waits for the gap, until the urgent 'c' arrives and takes it along.
    const ranAt: Record<string, number> = {};
    const b = group.run(() => {
      ranAt.b = performance.now();
      insert('b')();
    });
    // 'c' comes part way into the gap: the timing is what is tested.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const c = group.runUrgent(() => {
      ranAt.c = performance.now();
      insert('c')();
      return 'c';
    });
    await expect(c).resolves.toBe('c');
    await b;
    expect(ranAt.c! - committedAt).toBeLessThan(gapMs / 2);
    expect(ranAt.b).toBeLessThanOrEqual(ranAt.c!);
    expect(values()).toEqual(['a', 'b', 'c']);

    // An urgent unit on an idle store, right after a commit, does not wait for the gap either.
    const idleAt = performance.now();
    await group.runUrgent(insert('d'));
    expect(performance.now() - idleAt).toBeLessThan(gapMs / 2);
    // A unit that is not urgent still waits for it.
    const eAt = performance.now();
    await group.run(insert('e'));
    expect(performance.now() - eAt).toBeGreaterThanOrEqual(gapMs - 2);
    expect(values()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('runs its hooks after the units, in the same transaction, and their follow-ups after the commit, before any caller resumes', async () => {
    const group = new GroupCommit(db);
    const other = openDatabase(path.join(dir, 'test.db'));
    const seen: string[] = [];
    try {
      const remove = group.beforeCommit({
        run: () => {
          // The units' writes are there, and nobody else sees them yet: one transaction.
          seen.push(
            `hook sees ${values().join('')}, others ${other.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n}`,
          );
          insert('z')();
          return () =>
            seen.push(`after: others see ${other.prepare<[], { n: number }>('SELECT count(*) AS n FROM t').get()!.n}`);
        },
        onError: (error) => seen.push(`error ${String(error)}`),
      });
      const a = group.run(insert('a'), () => seen.push('committed a')).then(() => seen.push('resolved a'));
      const b = group.run(insert('b'), () => seen.push('committed b')).then(() => seen.push('resolved b'));
      await Promise.all([a, b]);
      expect(seen).toEqual([
        'hook sees ab, others 0',
        'committed a',
        'committed b',
        'after: others see 3',
        'resolved a',
        'resolved b',
      ]);
      remove();
      seen.length = 0;
      await group.run(insert('c'));
      expect(seen).toEqual([]);
      expect(values()).toEqual(['a', 'b', 'c', 'z']);
    } finally {
      other.close();
    }
  });

  it('undoes the writes of a hook that throws and tells it; the units still commit', async () => {
    const group = new GroupCommit(db);
    const errors: unknown[] = [];
    group.beforeCommit({
      run: () => {
        insert('z')();
        throw new Error('hook broke');
      },
      onError: (error) => errors.push(error),
    });
    await expect(group.run(insert('a'))).resolves.toMatchObject({ changes: 1 });
    expect(values()).toEqual(['a']);
    expect(errors).toEqual([new Error('hook broke')]);
  });

  it("runs a failed hook's recover in the transaction; a recover that throws fails the whole transaction", async () => {
    const group = new GroupCommit(db);
    let recoverFails = false;
    const errors: unknown[] = [];
    group.beforeCommit({
      run: () => {
        insert('hook')();
        throw new Error('hook broke');
      },
      recover: () => {
        insert('recovered')();
        if (recoverFails) throw new Error('recover broke');
      },
      onError: (error) => errors.push(error),
    });
    await group.run(insert('a'));
    expect(values()).toEqual(['a', 'recovered']);
    db.exec('DELETE FROM t');
    recoverFails = true;
    await expect(group.run(insert('b'))).rejects.toThrow('recover broke');
    expect(values()).toEqual([]);
    expect(errors.map((e) => (e as Error).message)).toEqual(['hook broke', 'hook broke', 'recover broke']);
  });

  it('tells the hooks when the transaction itself fails, and rejects every unit', async () => {
    const group = new GroupCommit(db);
    const errors: unknown[] = [];
    group.beforeCommit({ run: () => undefined, onError: (error) => errors.push(error) });
    // A unit that commits the transaction under the group: its COMMIT then fails.
    const sneaky = group.run(() => db.exec('COMMIT'));
    await expect(sneaky).rejects.toThrow();
    expect(errors).toHaveLength(1);
  });

  it('rejects the caller whose follow-up throws, and still runs the others', async () => {
    const group = new GroupCommit(db);
    const thrower = group.run(insert('a'), () => {
      throw new Error('follow-up broke');
    });
    const fine: string[] = [];
    const next = group.run(insert('b'), () => fine.push('b'));
    await expect(thrower).rejects.toThrow('follow-up broke');
    await expect(next).resolves.toMatchObject({ changes: 1 });
    expect(fine).toEqual(['b']);
    expect(values()).toEqual(['a', 'b']);
  });
});
