import { ValidationFailed } from '../errors/errors.js';

/**
 * Paging of lists, in one place: the page requests the store reads (keyset by id for v1 lists,
 * offset windows for v2 lists), the page of rows it answers, the v1 and the delivery list cursors
 * (one store's, and the cluster front's over every shard) and the v2 page meta.
 */

/** Keyset page request over integer ids. */
export interface IdPage {
  /** Rows strictly past this id in the given direction; undefined means from the start. */
  afterId: number | undefined;
  direction: 'asc' | 'desc';
  limit: number;
}

/** Offset page request (v2 lists: page and per_page). */
export interface PageWindow {
  offset: number;
  limit: number;
}

/** A page of rows plus whether more follow; the store reads one extra row to know. */
export interface PageOf<T> {
  rows: T[];
  hasMore: boolean;
}

export function takePage<T>(rows: T[], limit: number): PageOf<T> {
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * v1 list cursors: `next_page` is opaque to clients. It encodes the last id of the page; a token
 * that does not decode (or is empty) means "first page", as the contract asks.
 */
export function encodeCursor(lastId: number): string {
  return Buffer.from(`c1:${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(token: string | undefined): number | undefined {
  if (token === undefined || token === '') return undefined;
  const match = /^c1:(\d{1,15})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

export interface V1PageParams {
  from?: string;
  per: number;
  sort_direction: 'asc' | 'desc';
}

export function toIdPage(params: V1PageParams): IdPage {
  return { afterId: decodeCursor(params.from), direction: params.sort_direction, limit: params.per };
}

/** `next_page` of a v1 list: a cursor when more rows follow, else an empty string (still a string, per the contract). */
export function nextPageToken(rows: { id: number }[], hasMore: boolean): string {
  const last = rows.at(-1);
  return hasMore && last !== undefined ? encodeCursor(last.id) : '';
}

/** Keyset cursor of delivery lists: the seq of the last delivery of the page, opaque to clients. */
export function encodeDeliveryCursor(seq: number): string {
  return Buffer.from(`d1:${seq}`, 'utf8').toString('base64url');
}

export function decodeDeliveryCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const match = /^d1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw ValidationFailed.field('cursor', 'cursor is not a next_cursor of this list');
  return Number(match[1]);
}

/**
 * The cluster front's keyset cursor of a delivery list merged from every shard: each shard's own
 * position (a seq, '' for its start, '-' when it is done).
 */
export function encodeMergedCursor(positions: readonly string[]): string {
  return Buffer.from(`f1:${positions.join(',')}`, 'utf8').toString('base64url');
}

export function decodeMergedCursor(cursor: string | undefined, shards: number): string[] {
  if (cursor === undefined || cursor === '') return Array.from({ length: shards }, () => '');
  const match = /^f1:((?:[0-9]{1,15}|-|)(?:,(?:[0-9]{1,15}|-|))*)$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  const positions = match?.[1]!.split(',');
  if (positions === undefined || positions.length !== shards)
    throw ValidationFailed.field('cursor', 'cursor is not a next_cursor of this list');
  return positions;
}

/**
 * v2 page-number pagination (contract: `page`, `per_page`, answered with
 * `meta: {page, entries_count, per_page}`). Every v2 list declares its own default and documented
 * maximum in its schema (`pageParams` in schemas/v2/common.ts); a `per_page` outside 1..maximum or
 * a `page` below 1 is a 422 naming the field.
 */

/** The rows of a validated `{page, per_page}`. */
export function toWindow({ page, per_page: perPage }: { page: number; per_page: number }): PageWindow {
  return { offset: (page - 1) * perPage, limit: perPage };
}

export interface PageMeta {
  page: number;
  /** Entries of the whole list, on every page. */
  entries_count: number;
  per_page: number;
}

/** The `meta` object of a v2 list envelope. */
export function toMeta(page: number, perPage: number, entriesCount: number): PageMeta {
  return { page, entries_count: entriesCount, per_page: perPage };
}
