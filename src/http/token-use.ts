import type { AuthenticatedToken } from '../store/resources/accounts.js';
import type { Store } from '../store/store.js';

/** How stale a token's recorded last use may be: at most one write a minute per token. */
export const LAST_USE_EVERY_MS = 60_000;

/**
 * Records when each API token was last used (`api_tokens.last_used_at`, shown by `gateway token
 * list` and GET /admin/tokens) without a write per request: a token's use is written when the
 * recorded one is a minute old or more, in a transaction of one small UPDATE.
 */
export class TokenUse {
  private readonly written = new Map<number, number>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  used(token: AuthenticatedToken): void {
    const now = this.now();
    const last = this.written.get(token.tokenId) ?? token.lastUsedAt ?? 0;
    if (now - last < LAST_USE_EVERY_MS) return;
    this.written.set(token.tokenId, now);
    this.store.transaction(() => this.store.accounts.touchTokens(new Map([[token.tokenId, now]])));
  }
}
