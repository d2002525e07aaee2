// The committable offset of a partition never passes a message still in a handler, packed records
// included: a record is done only once every message it carries is.
import { describe, expect, it } from 'vitest';
import { OffsetTracker } from './kafka-offsets.js';

describe('OffsetTracker', () => {
  it('commits past a plain record once it is done, and never past an earlier one still running', () => {
    const tracker = new OffsetTracker();
    tracker.started(0, 10);
    tracker.started(0, 11);
    expect(tracker.held(0)).toBe(2);
    expect(tracker.done(0, 0, 11)).toBe(10);
    expect(tracker.done(0, 0, 10)).toBe(12);
    expect(tracker.held(0)).toBe(0);
  });

  it('holds a packed record until the last of its messages is done', () => {
    const tracker = new OffsetTracker();
    tracker.started(3, 20, 3);
    tracker.started(3, 21);
    expect(tracker.held(3)).toBe(4);
    expect(tracker.done(0, 3, 21)).toBe(20);
    expect(tracker.done(0, 3, 20)).toBeNull();
    expect(tracker.done(0, 3, 20)).toBeNull();
    expect(tracker.held(3)).toBe(1);
    expect(tracker.done(0, 3, 20)).toBe(22);
    expect(tracker.held(3)).toBe(0);
  });

  it('keeps partitions apart and commits nothing for a generation that is over', () => {
    const tracker = new OffsetTracker();
    tracker.started(0, 5, 2);
    tracker.started(1, 7);
    expect(tracker.done(0, 1, 7)).toBe(8);
    expect(tracker.held(0)).toBe(2);
    tracker.newGeneration();
    expect(tracker.current).toBe(1);
    expect(tracker.held(0)).toBe(0);
    expect(tracker.done(0, 0, 5)).toBeNull();
    tracker.started(0, 5, 2);
    expect(tracker.done(1, 0, 5)).toBeNull();
    expect(tracker.done(1, 0, 5)).toBe(6);
  });
});
