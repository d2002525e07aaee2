import type { IdPage } from '../store/pagination.js';

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
