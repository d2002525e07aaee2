import { presentAuth, type AuthObject } from '../presenters/auth.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { Store } from '../store/store.js';

/** The auth object of a channel row with its stored pages (read in the caller's transaction, if any). */
export function authObjectOf(store: Store, row: ChannelRow): AuthObject {
  return presentAuth(row, store.authPages.forChannel(row.id));
}

/** Auth objects of a page of rows, with one read of their pages. */
export function authObjectsOf(store: Store, rows: readonly ChannelRow[]): AuthObject[] {
  const pages = store.authPages.forChannels(rows.map((r) => r.id));
  return rows.map((row) => presentAuth(row, pages.get(row.id) ?? []));
}
