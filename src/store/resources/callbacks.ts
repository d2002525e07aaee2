import { LRUCache } from 'lru-cache';
import { CACHED_CHANNELS } from './channels.js';
import type { Db } from '../engine/db.js';

/** The API that created a channel: v1 channels also get the v1 `{entity: 'channel'}` payloads. */
export type ChannelApi = 'v1' | 'v2';

/** A channel's callback settings. The secrets are never presented by the v1/v2 API nor logged. */
export interface ChannelCallbackRow {
  channel_id: number;
  api: ChannelApi;
  /** Hex of 32 random bytes; each callback family presents it in its own form (see presentedSecret in src/domain/callback-secrets.ts). */
  signing_secret: string;
  /** Hex of 16 random bytes: `hub.verify_token` of the cloud-style subscribe handshake. */
  verify_token: string;
  created_at: number;
}

export interface NewChannelCallback {
  channelId: number;
  api: ChannelApi;
  signingSecret: string;
  verifyToken: string;
}

/** Callback settings per channel, and the receipts of provider deliveries already applied. */
export class CallbackStore {
  private readonly insertOne;
  private readonly byChannel;
  private readonly insertReceipt;
  private readonly pruneReceipts;
  /**
   * Committed settings by channel id (getCached). A channel's settings never change once written
   * (create keeps the first ones; channels are never deleted, only disabled), so entries need no
   * invalidation; they are added outside a transaction only, never from a write that could still be
   * rolled back.
   */
  private readonly cached = new LRUCache<number, ChannelCallbackRow>({ max: CACHED_CHANNELS });

  constructor(private readonly db: Db) {
    this.insertOne = db.prepare<[number, string, string, string, number]>(
      `INSERT INTO channel_callbacks (channel_id, api, signing_secret, verify_token, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (channel_id) DO NOTHING`,
    );
    this.byChannel = db.prepare<[number], ChannelCallbackRow>('SELECT * FROM channel_callbacks WHERE channel_id = ?');
    this.insertReceipt = db.prepare<[number, string, number]>(
      'INSERT INTO callback_receipts (channel_id, key, created_at) VALUES (?, ?, ?) ON CONFLICT (channel_id, key) DO NOTHING',
    );
    this.pruneReceipts = db.prepare<[number, number]>(
      `DELETE FROM callback_receipts WHERE (channel_id, key) IN
         (SELECT channel_id, key FROM callback_receipts WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    );
  }

  /** Stores a channel's callback settings; the first ones written stay. */
  create(settings: NewChannelCallback, now = Date.now()): ChannelCallbackRow {
    this.insertOne.run(settings.channelId, settings.api, settings.signingSecret, settings.verifyToken, now);
    return this.byChannel.get(settings.channelId)!;
  }

  find(channelId: number): ChannelCallbackRow | undefined {
    return this.byChannel.get(channelId);
  }

  /**
   * A live channel's settings. Every channel has them (createAuth writes them with the channel,
   * migration 004 backfilled older ones), so a missing row is a fault, never created on the fly.
   */
  get(channelId: number): ChannelCallbackRow {
    const settings = this.byChannel.get(channelId);
    if (settings === undefined) throw new Error(`Channel ${channelId} has no callback settings.`);
    return settings;
  }

  /** get, from the cache of committed settings (frozen: never change the row answered). */
  getCached(channelId: number): ChannelCallbackRow {
    const hit = this.cached.get(channelId);
    if (hit !== undefined) return hit;
    const settings = this.get(channelId);
    if (this.db.inTransaction) return settings;
    this.cached.set(channelId, Object.freeze(settings));
    return settings;
  }

  /**
   * Records that a provider delivery (an update id, a webhook id) was applied; false when it already
   * was. Atomic: of concurrent deliveries of the same key exactly one gets true.
   */
  claimReceipt(channelId: number, key: string, now = Date.now()): boolean {
    return this.insertReceipt.run(channelId, key, now).changes === 1;
  }

  /** Deletes up to `limit` receipts older than `before` (oldest first); answers how many went. */
  pruneReceiptsBefore(before: number, limit: number): number {
    return this.pruneReceipts.run(before, limit).changes;
  }
}
