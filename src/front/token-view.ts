/**
 * GET /admin/tokens through the front. Every core holds every token (the directory, docs/scaling.md
 * "The directory") but records only the uses it served itself, so the front merges the live shards'
 * lists: a token's last use is the latest of theirs, and a revocation seen by any shard counts (it
 * reaches the others within about a second). A token made a moment ago on one shard is listed from
 * that shard's answer. A shard that is down is left out: the list is whole, only that shard's last
 * uses are missing until it is back.
 */

/** One token as the admin API presents it (src/presenters/admin.ts, presentApiToken). */
export interface TokenRow {
  id: number;
  state: 'active' | 'revoked';
  last_used_at: string | null;
  revoked_at: string | null;
  [field: string]: unknown;
}

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** The tokens of every shard's answer, one row per token in id order, with the latest use and any revocation. */
export function mergeTokens(lists: readonly (readonly TokenRow[])[]): TokenRow[] {
  const merged = new Map<number, TokenRow>();
  for (const list of lists)
    for (const row of list) {
      const seen = merged.get(row.id);
      if (seen === undefined) {
        merged.set(row.id, { ...row });
        continue;
      }
      seen.last_used_at = later(seen.last_used_at, row.last_used_at);
      if (seen.revoked_at === null && row.revoked_at !== null) {
        seen.revoked_at = row.revoked_at;
        seen.state = 'revoked';
      }
    }
  return [...merged.values()].sort((a, b) => a.id - b.id);
}
