import { describe, expect, it } from 'vitest';
import { oneMonthBefore, parseTimestamp, toIso } from './time.js';

const iso = (d: Date | undefined) => d?.toISOString();

describe('parseTimestamp', () => {
  it('reads ISO 8601 with a Z zone', () => {
    expect(iso(parseTimestamp('2024-05-06T07:08:09Z'))).toBe('2024-05-06T07:08:09.000Z');
    expect(iso(parseTimestamp('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09.123Z');
  });

  it('reads ISO 8601 with a numeric offset', () => {
    expect(iso(parseTimestamp('2024-05-06T07:08:09+02:00'))).toBe('2024-05-06T05:08:09.000Z');
    expect(iso(parseTimestamp('2024-05-06T07:08:09-05:30'))).toBe('2024-05-06T12:38:09.000Z');
  });

  it('reads ISO 8601 without a zone as UTC', () => {
    expect(iso(parseTimestamp('2024-05-06T07:08:09'))).toBe('2024-05-06T07:08:09.000Z');
    expect(iso(parseTimestamp('2024-05-06T07:08'))).toBe('2024-05-06T07:08:00.000Z');
    expect(iso(parseTimestamp('2024-05-06 07:08:09'))).toBe('2024-05-06T07:08:09.000Z');
  });

  it('reads a date alone as UTC midnight', () => {
    expect(iso(parseTimestamp('2024-05-06'))).toBe('2024-05-06T00:00:00.000Z');
  });

  it('reads unix seconds given as text or as a number', () => {
    expect(iso(parseTimestamp('1700000000'))).toBe('2023-11-14T22:13:20.000Z');
    expect(iso(parseTimestamp(1700000000))).toBe('2023-11-14T22:13:20.000Z');
    expect(iso(parseTimestamp(0))).toBe('1970-01-01T00:00:00.000Z');
  });

  it('trims surrounding whitespace', () => {
    expect(iso(parseTimestamp('  2024-05-06T07:08:09Z '))).toBe('2024-05-06T07:08:09.000Z');
  });

  it.each([
    '',
    '   ',
    'garbage',
    'yesterday',
    '2024-13-01',
    '2024-05-32',
    '2024-05-06T25:00:00Z',
    '2024/05/06',
    '06.05.2024',
    '-1700000000',
    '1700000000.5',
    '2024-05-06Tfoo',
    '0x10',
  ])('answers undefined for %j', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it('answers undefined for an impossible calendar day instead of rolling it over', () => {
    expect(parseTimestamp('2023-02-30')).toBeUndefined();
    expect(parseTimestamp('2023-02-29T10:00:00Z')).toBeUndefined();
    expect(iso(parseTimestamp('2024-02-29'))).toBe('2024-02-29T00:00:00.000Z');
  });

  it('answers undefined for numbers that are not whole non-negative seconds', () => {
    expect(parseTimestamp(-1)).toBeUndefined();
    expect(parseTimestamp(1.5)).toBeUndefined();
    expect(parseTimestamp(Number.NaN)).toBeUndefined();
    expect(parseTimestamp(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('oneMonthBefore', () => {
  it('goes back one calendar month, keeping the time of day', () => {
    expect(oneMonthBefore(new Date('2024-05-15T10:20:30.400Z')).toISOString()).toBe('2024-04-15T10:20:30.400Z');
  });

  it('crosses a year boundary', () => {
    expect(oneMonthBefore(new Date('2024-01-10T00:00:00.000Z')).toISOString()).toBe('2023-12-10T00:00:00.000Z');
  });

  it('clamps to the last day of a shorter previous month', () => {
    expect(oneMonthBefore(new Date('2024-03-31T12:00:00.000Z')).toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(oneMonthBefore(new Date('2023-03-31T12:00:00.000Z')).toISOString()).toBe('2023-02-28T12:00:00.000Z');
    expect(oneMonthBefore(new Date('2024-05-31T00:00:00.000Z')).toISOString()).toBe('2024-04-30T00:00:00.000Z');
  });

  it('always answers an earlier instant and does not change its argument', () => {
    const now = new Date('2024-03-31T12:00:00.000Z');
    const then = oneMonthBefore(now);
    expect(then.getTime()).toBeLessThan(now.getTime());
    expect(now.toISOString()).toBe('2024-03-31T12:00:00.000Z');
  });
});

describe('toIso', () => {
  it('formats unix milliseconds as ISO 8601 UTC with milliseconds', () => {
    expect(toIso(1_700_000_000_123)).toBe('2023-11-14T22:13:20.123Z');
  });
});
