import { describe, expect, it } from 'vitest';
import { DispatchTurns } from './dispatch-turns.js';

/** What ran, in order: the dispatches and the markers of the event loop's phases. */
function recorder(): { runs: string[]; turns: DispatchTurns } {
  const runs: string[] = [];
  return { runs, turns: new DispatchTurns(() => runs.push('dispatch')) };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('DispatchTurns', () => {
  it('runs a dispatch asked for soon once the work under way is done, before any timer or I/O, once however often asked', async () => {
    const { runs, turns } = recorder();
    setImmediate(() => runs.push('next turn'));
    turns.soon();
    turns.soon();
    runs.push('work under way');
    await nextTurn();
    expect(runs).toEqual(['work under way', 'dispatch', 'next turn']);
  });

  it('runs a dispatch asked for next in the next turn, once however often asked, and again when asked after it ran', async () => {
    const { runs, turns } = recorder();
    turns.next();
    turns.next();
    process.nextTick(() => runs.push('this turn'));
    await nextTurn();
    await nextTurn();
    expect(runs).toEqual(['this turn', 'dispatch']);
    turns.next();
    await nextTurn();
    await nextTurn();
    expect(runs).toEqual(['this turn', 'dispatch', 'dispatch']);
  });

  it('keeps the two apart: a soon dispatch does not stand for the next turn one', async () => {
    const { runs, turns } = recorder();
    turns.next();
    turns.soon();
    await nextTurn();
    await nextTurn();
    expect(runs).toEqual(['dispatch', 'dispatch']);
  });
});
