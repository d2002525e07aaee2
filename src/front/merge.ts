/**
 * Account-wide lists through the front: every shard holds part of the list, so the front asks each
 * and merges their answers in the list's documented order, with paging that stays stable:
 *
 * - `GET /p1/companies` (v1, `next_page` over ids, docs/messaging-gateway-api.md): each shard's page
 *   after the same cursor, merged by id; the cursor of the merged page is the last id shown, which
 *   every shard reads the same way.
 * - `GET /api/p2/auths`, `GET /api/p2/biz_templates` (v2, `page`/`per_page`): each shard's first
 *   page × per_page entries in the list's order, merged; the page is cut from the merge and
 *   `entries_count` is the sum of the shards'. A deep page costs the front every shard's entries up
 *   to it.
 * - `GET /admin/deliveries` without a company (keyset `next_cursor`): the cursor of the merged page
 *   holds each shard's own cursor, so every shard's list is walked exactly once.
 *
 * Any shard's answer other than 200 (a bad token, a bad parameter, a rate limit) is the answer; a
 * shard that is down makes the list 503, never a silently shorter list.
 */
import { AUTHS_MAX_PER_PAGE } from '../../schemas/v2/auths.js';
import { TEMPLATES_MAX_PER_PAGE } from '../../schemas/v2/templates.js';
import {
  decodeDeliveryCursor,
  decodeMergedCursor,
  encodeCursor,
  encodeDeliveryCursor,
  encodeMergedCursor,
} from '../lib/paging.js';
import { parseQuery } from '../http/query.js';
import type { MergedList } from './routing.js';
import { ShardUnavailable } from './shard-set.js';

/** One shard's answer, read whole. */
export interface ShardAnswer {
  shard: number;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A list request's input: its query string, and a JSON body merged over it (GET parameters as JSON). */
export interface ListInput {
  querystring: string;
  json: Record<string, unknown> | null;
}

/** Asks one shard for the list with `input`. */
export type AskShard = (shard: number, input: ListInput) => Promise<ShardAnswer>;

export type Merged = { answer: ShardAnswer } | { json: unknown };

type Row = Record<string, unknown>;

/** The input with `params` set (and `drop` removed), in the query and, where it carries them, in the JSON body. */
export function withParams(
  input: ListInput,
  params: Record<string, string | number>,
  drop: readonly string[] = [],
): ListInput {
  const query = new URLSearchParams(input.querystring);
  for (const name of drop) query.delete(name);
  for (const [name, value] of Object.entries(params)) query.set(name, String(value));
  let json = input.json;
  if (json !== null) {
    json = { ...json };
    for (const name of drop) delete json[name];
    for (const [name, value] of Object.entries(params)) if (name in json) json[name] = value;
  }
  return { querystring: query.toString(), json };
}

/** The merged parameters a shard reads (the JSON body over the query), for the front's own reading. */
function paramsOf(input: ListInput): Record<string, unknown> {
  return { ...parseQuery(input.querystring), ...(input.json ?? {}) };
}

/** Asks every shard (all must be up); the first answer other than 200, in shard order, stops the list. */
async function askAll(
  shards: number,
  down: readonly number[],
  ask: AskShard,
  input: ListInput | ((shard: number) => ListInput | null),
): Promise<{ stop: ShardAnswer } | { bodies: (Row | null)[] }> {
  if (down.length > 0) throw new ShardUnavailable(down[0]!);
  const answers = await Promise.all(
    Array.from({ length: shards }, (_, shard) => {
      const own = typeof input === 'function' ? input(shard) : input;
      return own === null ? Promise.resolve(null) : ask(shard, own);
    }),
  );
  const refused = answers.find((answer) => answer !== null && answer.status !== 200);
  if (refused) return { stop: refused };
  return { bodies: answers.map((answer) => (answer === null ? null : (JSON.parse(answer.text) as Row))) };
}

/**
 * Merges lists that are each sorted by `compare`, taking from the head of whichever list comes
 * first: what is taken of each shard is always a prefix of its list (what keyset cursors need).
 * Answers the rows taken and how many came from each shard.
 */
export function mergeSorted<T>(
  lists: readonly (readonly T[])[],
  compare: (a: T, b: T) => number,
  limit: number,
): { rows: T[]; taken: number[] } {
  const heads = lists.map(() => 0);
  const rows: T[] = [];
  while (rows.length < limit) {
    let best = -1;
    for (let shard = 0; shard < lists.length; shard++) {
      if (heads[shard]! >= lists[shard]!.length) continue;
      // Ties go to the lower shard: the order is total, so pages never overlap.
      if (best === -1 || compare(lists[shard]![heads[shard]!]!, lists[best]![heads[best]!]!) < 0) best = shard;
    }
    if (best === -1) break;
    rows.push(lists[best]![heads[best]!]!);
    heads[best]! += 1;
  }
  return { rows, taken: heads };
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** GET /p1/companies: each shard's page after the same `from`, merged by external_id in sort_direction. */
async function mergeCompanies(
  shards: number,
  down: readonly number[],
  ask: AskShard,
  input: ListInput,
): Promise<Merged> {
  const all = await askAll(shards, down, ask, input);
  if ('stop' in all) return { answer: all.stop };
  const params = paramsOf(input);
  const per = params.per === undefined ? 50 : numberOf(params.per);
  const direction = params.sort_direction === 'desc' ? -1 : 1;
  const data = all.bodies.map((body) => (body as { data: { companies: Row[]; next_page: string } }).data);
  const { rows, taken } = mergeSorted(
    data.map((d) => d.companies),
    (a, b) => direction * (numberOf(a.external_id) - numberOf(b.external_id)),
    per,
  );
  const more = data.some((d, shard) => taken[shard]! < d.companies.length || d.next_page !== '');
  const last = rows.at(-1);
  return {
    json: {
      status: 'ok',
      data: { companies: rows, next_page: more && last !== undefined ? encodeCursor(numberOf(last.external_id)) : '' },
    },
  };
}

interface V2Page {
  rows: Row[];
  meta: { page: number; entries_count: number; per_page: number };
}

/**
 * A v2 page-numbered list: asks every shard with the client's input (their validation answers a
 * bad one; their meta gives the page and per_page as read), then, past the first page, each shard's
 * first page × per_page entries, and cuts the page from their merge.
 */
async function mergeV2(
  shards: number,
  down: readonly number[],
  ask: AskShard,
  input: ListInput,
  key: string,
  maxPerPage: number,
  compare: (a: Row, b: Row) => number,
): Promise<Merged> {
  const first = await askAll(shards, down, ask, input);
  if ('stop' in first) return { answer: first.stop };
  const pages = first.bodies.map((body) => ({
    rows: (body as Row)[key] as Row[],
    meta: (body as unknown as V2Page).meta,
  }));
  const { page, per_page: perPage } = pages[0]!.meta;
  const offset = (page - 1) * perPage;
  const total = pages.reduce((sum, p) => sum + p.meta.entries_count, 0);
  let lists = pages.map((p) => p.rows);
  if (page > 1) {
    // Every shard's first offset + per_page entries (fewer when it has fewer), a page of the most at a time.
    lists = await Promise.all(
      pages.map(async (p, shard) => {
        const wanted = Math.min(offset + perPage, p.meta.entries_count);
        const rows: Row[] = [];
        for (let n = 1; rows.length < wanted; n++) {
          const answer = await ask(shard, withParams(input, { page: n, per_page: maxPerPage }));
          if (answer.status !== 200)
            throw new Error(`shard ${shard} answered ${answer.status} to a page it answered before`);
          const got = (JSON.parse(answer.text) as Row)[key] as Row[];
          rows.push(...got);
          if (got.length < maxPerPage) break;
        }
        return rows.slice(0, wanted);
      }),
    );
  }
  const { rows } = mergeSorted(lists, compare, offset + perPage);
  return { json: { [key]: rows.slice(offset), meta: { page, entries_count: total, per_page: perPage } } };
}

function compareTemplates(sort: unknown): (a: Row, b: Row) => number {
  const given = typeof sort === 'object' && sort !== null ? (sort as Record<string, unknown>) : {};
  const field = given.position !== undefined ? 'position' : 'created_at';
  const direction = (given[field] ?? (field === 'created_at' ? 'desc' : 'asc')) === 'asc' ? 1 : -1;
  const value = (row: Row) => (field === 'created_at' ? Date.parse(String(row.created_at)) : numberOf(row.position));
  // As the store orders them: by the field, then by id, in the same direction.
  return (a, b) => direction * (value(a) - value(b) || numberOf(a.id) - numberOf(b.id));
}

/** GET /admin/deliveries across every shard: newest first, each shard walked from its own cursor. */
async function mergeDeliveries(
  shards: number,
  down: readonly number[],
  ask: AskShard,
  input: ListInput,
): Promise<Merged> {
  const params = paramsOf(input);
  const positions = decodeMergedCursor(typeof params.cursor === 'string' ? params.cursor : undefined, shards);
  const limit = params.limit === undefined ? 50 : numberOf(params.limit);
  const inputOf = (shard: number, position: string, size?: number): ListInput | null =>
    position === '-'
      ? null
      : withParams(
          input,
          {
            ...(position === '' ? {} : { cursor: encodeDeliveryCursor(Number(position)) }),
            ...(size === undefined ? {} : { limit: size }),
          },
          ['cursor'],
        );
  const all = await askAll(shards, down, ask, (shard) => inputOf(shard, positions[shard]!));
  if ('stop' in all) return { answer: all.stop };
  const pages = all.bodies.map((body) =>
    body === null
      ? { deliveries: [] as Row[], next_cursor: null }
      : (body as { deliveries: Row[]; next_cursor: string | null }),
  );
  const { rows, taken } = mergeSorted(
    pages.map((p) => p.deliveries),
    (a, b) =>
      Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)) || String(b.id).localeCompare(String(a.id)),
    limit,
  );
  const next = await Promise.all(
    pages.map(async (p, shard) => {
      const took = taken[shard]!;
      if (positions[shard] === '-') return '-';
      if (took === p.deliveries.length)
        return p.next_cursor === null ? '-' : String(decodeDeliveryCursor(p.next_cursor));
      if (took === 0) return positions[shard]!;
      // Part of the shard's page was shown: its cursor after the rows shown is that of a page of exactly that many.
      const answer = await ask(shard, inputOf(shard, positions[shard]!, took)!);
      const cursor = (JSON.parse(answer.text) as { next_cursor: string | null }).next_cursor;
      return cursor === null ? '-' : String(decodeDeliveryCursor(cursor));
    }),
  );
  return {
    json: {
      deliveries: rows,
      next_cursor: next.every((position) => position === '-') ? null : encodeMergedCursor(next),
    },
  };
}

/** Answers an account-wide list from every shard's answer. */
export function mergeList(
  list: MergedList,
  shards: number,
  down: readonly number[],
  ask: AskShard,
  input: ListInput,
): Promise<Merged> {
  switch (list) {
    case 'companies':
      return mergeCompanies(shards, down, ask, input);
    case 'auths':
      return mergeV2(shards, down, ask, input, 'auths', AUTHS_MAX_PER_PAGE, (a, b) => numberOf(a.id) - numberOf(b.id));
    case 'templates':
      return mergeV2(
        shards,
        down,
        ask,
        input,
        'biz_templates',
        TEMPLATES_MAX_PER_PAGE,
        compareTemplates(paramsOf(input).sort),
      );
    case 'deliveries':
      return mergeDeliveries(shards, down, ask, input);
  }
}
