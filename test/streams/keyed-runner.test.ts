import { describe, expect, it } from 'vitest';
import { KeyedRunner, type KeyedRunnerOptions } from '../../src/streams/keyed-runner.js';
import type { IncomingMessage } from '../../src/streams/stream.js';
import { eventually } from '../helpers/wait.js';

const msg = (key: string, id: string, notBefore = 0): IncomingMessage => ({
  stream: 's',
  key,
  id,
  value: { id },
  notBefore,
});

function runner(
  options: Partial<KeyedRunnerOptions<IncomingMessage>> & Pick<KeyedRunnerOptions<IncomingMessage>, 'handler'>,
) {
  const committed: string[] = [];
  const gaveUp: string[] = [];
  const r = new KeyedRunner<IncomingMessage>({
    maxInFlight: 2,
    onDone: (m) => void committed.push(m.id),
    onFailed: () => {},
    onGaveUp: (m) => void gaveUp.push(m.id),
    backoffMs: () => 0,
    ...options,
  });
  return { r, committed, gaveUp };
}

describe('KeyedRunner', () => {
  it('runs the next message of a key while the last one waits for its side effects (CommitAfter), and commits in key order once they are durable', async () => {
    const durable = new Map<string, () => void>();
    const failed = new Map<string, (error: Error) => void>();
    const handled: string[] = [];
    const { r, committed } = runner({
      handler: async (m) => {
        handled.push(m.id);
        return {
          durable: new Promise<void>((resolve, reject) => (durable.set(m.id, resolve), failed.set(m.id, reject))),
        };
      },
    });
    for (const id of ['a', 'b', 'c', 'd']) r.submit(msg('k', id));
    await eventually('every handler ran without waiting for a commit', () => handled.length === 4);
    expect(handled).toEqual(['a', 'b', 'c', 'd']);
    expect(committed).toEqual([]);
    // b's side effects land first: its commit still waits for a's. Another key's message, its side
    // effects landed after b's, is committed meanwhile: b's had their chance to go first.
    durable.get('b')!();
    r.submit(msg('other', 'x'));
    await eventually('the handler of x ran', () => durable.has('x'));
    durable.get('x')!();
    await eventually('x committed', () => committed.includes('x'));
    expect(committed).toEqual(['x']);
    durable.get('a')!();
    await eventually('a and b committed', () => committed.length === 3);
    expect(committed).toEqual(['x', 'a', 'b']);
    // c's side effects failed: c stays uncommitted (handed out again later), d is committed.
    failed.get('c')!(new Error('store away'));
    durable.get('d')!();
    await eventually('d committed', () => committed.includes('d'));
    expect(committed).toEqual(['x', 'a', 'b', 'd']);
    await r.drain();
  });

  it('waits for commits pending on side effects when draining', async () => {
    let release: () => void = () => {};
    const { r, committed } = runner({
      handler: async () => ({ durable: new Promise<void>((resolve) => (release = resolve)) }),
    });
    r.submit(msg('k', 'only'));
    await eventually('the handler ran', () => r.holding === 0);
    const drained = r.drain();
    // Released a turn after the drain began: a drain that did not wait would be done by then.
    setImmediate(() => release());
    await drained;
    expect(committed).toEqual(['only']);
  });

  it('drops a message that went stale while it waited (a rebalance), neither running nor committing it', async () => {
    const handled: string[] = [];
    const stale = new Set(['old-1', 'old-2']);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { r, committed } = runner({
      handler: async (m) => {
        if (m.id === 'first') await gate;
        handled.push(m.id);
      },
      stale: (m) => stale.has(m.id),
    });
    // 'old-*' wait behind 'first' on their key; the rebalance happens while they wait.
    for (const id of ['first', 'old-1', 'old-2', 'refetched']) r.submit(msg('k', id));
    release();
    await eventually('the key drained', () => committed.includes('refetched'));
    expect(handled).toEqual(['first', 'refetched']);
    expect(committed).toEqual(['first', 'refetched']);
    expect(r.holding).toBe(0);
    await r.drain();
  });

  it('gives up a poison message after maxAttempts, commits it and lets its key go on', async () => {
    let poisonCalls = 0;
    const { r, committed, gaveUp } = runner({
      maxAttempts: 3,
      handler: async (m) => {
        if (m.id === 'poison') {
          poisonCalls += 1;
          throw new Error('FOREIGN KEY constraint failed');
        }
      },
    });
    r.submit(msg('k', 'poison'));
    r.submit(msg('k', 'after'));
    await eventually('the key moved on', () => committed.includes('after'));
    expect(poisonCalls).toBe(3);
    expect(gaveUp).toEqual(['poison']);
    expect(committed).toEqual(['poison', 'after']);
    await r.drain();
  });

  it('retries only the commit when the commit fails, never the handler', async () => {
    const handled: string[] = [];
    let commits = 0;
    const { r } = runner({
      handler: async (m) => void handled.push(m.id),
      onDone: () => {
        commits += 1;
        if (commits < 3) throw new Error('SQLITE_BUSY');
      },
    });
    r.submit(msg('k', 'm'));
    await eventually('committed', () => commits === 3);
    await r.drain();
    expect(handled).toEqual(['m']);
  });

  it('counts only running handlers toward maxInFlight: a key with many queued messages does not make it full', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { r, committed } = runner({ maxInFlight: 2, handler: async (m) => (m.key === 'slow' ? gate : undefined) });
    for (let n = 0; n < 10; n += 1) r.submit(msg('slow', `slow-${n}`));
    await eventually('the slow head running', () => r.size === 1);
    expect(r.full).toBe(false);
    r.submit(msg('other', 'other-1'));
    await eventually('the other key done', () => committed.includes('other-1'));
    release();
    await eventually('all slow ones in order', () => committed.filter((id) => id.startsWith('slow')).length === 10);
    expect(committed.filter((id) => id.startsWith('slow'))).toEqual(Array.from({ length: 10 }, (_, n) => `slow-${n}`));
  });

  it('parks messages without a running slot, and drain aborts parked waits instead of waiting for them', async () => {
    const parked: string[] = [];
    const { r, committed } = runner({
      maxInFlight: 1,
      handler: async () => {},
      // Parked until aborted (a not_before far away on a clock that never moves).
      until: (m, signal) =>
        m.notBefore === 0
          ? Promise.resolve(true)
          : new Promise<boolean>((resolve) => {
              parked.push(m.id);
              signal.addEventListener('abort', () => resolve(false), { once: true });
            }),
    });
    r.submit(msg('a', 'later-a', 1));
    r.submit(msg('b', 'later-b', 1));
    r.submit(msg('c', 'now'));
    await eventually('the due message ran despite two parked ones', () => committed.includes('now'));
    expect(parked.sort()).toEqual(['later-a', 'later-b']);
    await r.drain();
    expect(committed).toEqual(['now']);
    expect(r.holding).toBe(0);
  });

  it('drain lets a running handler finish and commit, leaving its queued followers uncommitted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { r, committed } = runner({ handler: async (m) => (m.id === 'first' ? gate : undefined) });
    r.submit(msg('k', 'first'));
    r.submit(msg('k', 'second'));
    await eventually('running', () => r.size === 1);
    const drained = r.drain();
    release();
    await drained;
    expect(committed).toEqual(['first']);
  });
});
