// What the front exchanges with the shards (docs/scaling.md, "The front"): the headers it passes on
// to a core, and the lists it asks of every shard and merges into one page and one cursor.
import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeDeliveryCursor } from '../lib/paging.js';
import { upstreamHeaders } from './forwarded-headers.js';
import { decodeMergedCursor, encodeMergedCursor } from '../lib/paging.js';
import { mergeList, mergeSorted, type AskShard } from './merge.js';

/** The runs of each property; FUZZ_RUNS changes it. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

describe('upstreamHeaders', () => {
  it('passes every header but the hop-by-hop ones, traceparent included, and adds X-Forwarded-*', () => {
    const req = {
      headers: {
        host: 'gw.example',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        connection: 'keep-alive',
        expect: '100-continue',
        'x-hub-signature-256': 'sha256=ab',
        'content-length': '9',
        'x-forwarded-for': '203.0.113.9',
      },
      socket: { remoteAddress: '::ffff:10.0.0.7' },
    } as unknown as IncomingMessage;
    expect(upstreamHeaders(req, Buffer.from('{"a": 1 }'))).toEqual({
      host: 'gw.example',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'x-hub-signature-256': 'sha256=ab',
      'content-length': '9',
      'x-forwarded-for': '203.0.113.9, 10.0.0.7',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'gw.example',
    });
  });
});

describe('merging lists', () => {
  it('mergeSorted takes a prefix of every list, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 20 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 60 }),
        (raw, limit) => {
          const lists = raw.map((list) => [...list].sort((a, b) => a - b));
          const { rows, taken } = mergeSorted(lists, (a, b) => a - b, limit);
          expect(rows).toEqual(
            lists
              .flat()
              .sort((a, b) => a - b)
              .slice(0, limit),
          );
          expect(taken.reduce((a, b) => a + b, 0)).toBe(rows.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('walks every shard’s deliveries exactly once through the merged cursor', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 5 }),
        async (sizes, limit) => {
          // Shard s holds deliveries with seq 1..n, newest (highest seq) first, as the store lists them.
          const shards = sizes.map((n, shard) =>
            Array.from({ length: n }, (_, i) => ({
              seq: n - i,
              id: `d${shard}-${n - i}`,
              created_at: new Date(1_800_000_000_000 + (n - i) * 1000 + shard).toISOString(),
            })),
          );
          const ask: AskShard = async (shard, input) => {
            const params = new URLSearchParams(input.querystring);
            const before = params.has('cursor')
              ? Number(Buffer.from(params.get('cursor')!, 'base64url').toString().slice(3))
              : Infinity;
            const size = Number(params.get('limit') ?? 50);
            const rows = shards[shard]!.filter((d) => d.seq < before);
            const page = rows.slice(0, size);
            const text = JSON.stringify({
              deliveries: page.map(({ id, created_at }) => ({ id, created_at })),
              next_cursor: rows.length > size ? encodeDeliveryCursor(page.at(-1)!.seq) : null,
            });
            return { shard, status: 200, headers: {}, text };
          };
          const seen: string[] = [];
          let cursor: string | null = '';
          for (let round = 0; cursor !== null && round < 100; round++) {
            const merged = await mergeList('deliveries', sizes.length, [], ask, {
              querystring: new URLSearchParams({
                limit: String(limit),
                ...(cursor === '' ? {} : { cursor }),
              }).toString(),
              json: null,
            });
            const page = (merged as { json: { deliveries: { id: string }[]; next_cursor: string | null } }).json;
            expect(page.deliveries.length).toBeLessThanOrEqual(limit);
            seen.push(...page.deliveries.map((d) => d.id));
            cursor = page.next_cursor;
          }
          expect(seen.sort()).toEqual(
            shards
              .flat()
              .map((d) => d.id)
              .sort(),
          );
        },
      ),
      { numRuns: Math.min(RUNS, 100) },
    );
  });

  it('reads back its own cursor and refuses any other', () => {
    expect(decodeMergedCursor(encodeMergedCursor(['', '12', '-']), 3)).toEqual(['', '12', '-']);
    expect(() => decodeMergedCursor(encodeMergedCursor(['1', '2']), 3)).toThrow();
    expect(() => decodeMergedCursor('bm9wZQ', 3)).toThrow();
  });
});
