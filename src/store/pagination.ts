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
