import type { Db } from '../engine/db.js';

/** A page an auth's provider offers (a community, a business account). */
export interface AuthPageRow {
  id: number;
  channel_id: number;
  company_id: number;
  external_id: string;
  name: string;
  username: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export interface ListedPage {
  id: string;
  name: string;
  username?: string;
}

/** The pages of auths (table auth_pages). */
export class AuthPageStore {
  private readonly upsertOne;
  private readonly removeUnlisted;
  private readonly byChannel;
  private readonly enableOne;
  private readonly byChannels;

  constructor(db: Db) {
    this.upsertOne = db.prepare<[number, number, string, string, string | null, number, number]>(
      `INSERT INTO auth_pages (channel_id, company_id, external_id, name, username, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel_id, external_id) DO UPDATE SET name = excluded.name, username = excluded.username, updated_at = excluded.updated_at`,
    );
    this.removeUnlisted = db.prepare<[number, string]>(
      'DELETE FROM auth_pages WHERE channel_id = ? AND enabled = 0 AND external_id NOT IN (SELECT value FROM json_each(?))',
    );
    this.byChannel = db.prepare<[number], AuthPageRow>('SELECT * FROM auth_pages WHERE channel_id = ? ORDER BY id');
    this.byChannels = db.prepare<[string], AuthPageRow>(
      'SELECT * FROM auth_pages WHERE channel_id IN (SELECT value FROM json_each(?)) ORDER BY id',
    );
    this.enableOne = db.prepare<[number, number, string], AuthPageRow>(
      'UPDATE auth_pages SET enabled = 1, updated_at = ? WHERE channel_id = ? AND external_id = ? RETURNING *',
    );
  }

  /** Keeps the listed pages (new ones added, known ones renamed) and drops the unlisted ones not enabled. */
  replaceListed(channel: { id: number; company_id: number }, pages: readonly ListedPage[], now = Date.now()): void {
    for (const page of pages)
      this.upsertOne.run(channel.id, channel.company_id, page.id, page.name, page.username ?? null, now, now);
    this.removeUnlisted.run(channel.id, JSON.stringify(pages.map((p) => p.id)));
  }

  forChannel(channelId: number): AuthPageRow[] {
    return this.byChannel.all(channelId);
  }

  /** Pages of several channels (a list answer), by channel id. */
  forChannels(channelIds: readonly number[]): Map<number, AuthPageRow[]> {
    const pages = new Map<number, AuthPageRow[]>();
    if (channelIds.length === 0) return pages;
    for (const row of this.byChannels.all(JSON.stringify(channelIds)))
      pages.set(row.channel_id, [...(pages.get(row.channel_id) ?? []), row]);
    return pages;
  }

  /** Marks a listed page connected; undefined when the channel has no such page. */
  enable(channelId: number, externalId: string, now = Date.now()): AuthPageRow | undefined {
    return this.enableOne.get(now, channelId, externalId);
  }
}
