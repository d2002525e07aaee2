import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, nextPageToken, toIdPage } from './paging.js';

describe('v1 list cursors', () => {
  it.each([0, 1, 42, 123_456_789, 999_999_999_999_999])('round-trips id %d', (id) => {
    const token = encodeCursor(id);
    expect(typeof token).toBe('string');
    expect(token.length).toBeGreaterThan(0);
    expect(token.length).toBeLessThanOrEqual(255);
    expect(decodeCursor(token)).toBe(id);
  });

  it('is opaque: the token is not the bare id', () => {
    expect(encodeCursor(17)).not.toBe('17');
    expect(encodeCursor(17)).not.toContain('17');
  });

  it('uses only URL-safe characters', () => {
    for (const id of [1, 62, 63, 255, 65_535, 16_777_215, 999_999_999]) {
      expect(encodeCursor(id)).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });

  it('answers undefined (first page) for a missing or empty token', () => {
    expect(decodeCursor(undefined)).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
  });

  it.each([
    'garbage',
    '17',
    'c1:17',
    '!!!!',
    '%%%',
    Buffer.from('c1:').toString('base64url'),
    Buffer.from('c1:abc').toString('base64url'),
    Buffer.from('c1:-5').toString('base64url'),
    Buffer.from('c2:5').toString('base64url'),
    Buffer.from('c1:5 ').toString('base64url'),
    Buffer.from('c1:1234567890123456').toString('base64url'),
    'x'.repeat(255),
  ])('answers undefined for the garbage token %j', (token) => {
    expect(decodeCursor(token)).toBeUndefined();
  });
});

describe('toIdPage', () => {
  it('maps v1 parameters to a keyset page', () => {
    expect(toIdPage({ per: 10, sort_direction: 'desc', from: encodeCursor(7) })).toEqual({
      afterId: 7,
      direction: 'desc',
      limit: 10,
    });
    expect(toIdPage({ per: 50, sort_direction: 'asc' })).toEqual({ afterId: undefined, direction: 'asc', limit: 50 });
    expect(toIdPage({ per: 2, sort_direction: 'asc', from: 'nonsense' })).toEqual({
      afterId: undefined,
      direction: 'asc',
      limit: 2,
    });
  });
});

describe('nextPageToken', () => {
  it('is an empty string on the last page', () => {
    expect(nextPageToken([{ id: 1 }, { id: 2 }], false)).toBe('');
    expect(nextPageToken([], false)).toBe('');
  });

  it('is an empty string when no rows were read, even if more were announced', () => {
    expect(nextPageToken([], true)).toBe('');
  });

  it('encodes the last id of the page when more rows follow', () => {
    const token = nextPageToken([{ id: 3 }, { id: 9 }, { id: 5 }], true);
    expect(token).not.toBe('');
    expect(decodeCursor(token)).toBe(5);
    expect(token).toBe(encodeCursor(5));
  });
});
