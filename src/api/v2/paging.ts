/**
 * v2 page-number pagination (contract: `page`, `per_page`, answered with
 * `meta: {page, entries_count, per_page}`). Every v2 list declares its own default and documented
 * maximum in its schema (`pageParams` in schemas/v2/common.ts); a `per_page` outside 1..maximum or
 * a `page` below 1 is a 422 naming the field.
 */
import type { PageWindow } from '../../store/pagination.js';

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
