import { LRUCache } from 'lru-cache';
import type { Db } from '../engine/db.js';
import { nextIdSql, type IdSpace } from '../engine/id-space.js';
import { takePage, type IdPage, type PageOf, type PageWindow } from '../../lib/paging.js';

export type ChannelState = 'unconfirmed' | 'enabled' | 'disabled';

/** A connected messaging account: a channel in API v1, an auth in v2. */
export interface ChannelRow {
  id: number;
  company_id: number;
  provider: string;
  state: ChannelState;
  /** Non-secret connection settings (JSON object). */
  settings: Record<string, unknown>;
  /** Secrets (tokens, passwords). Never presented, never logged. */
  credentials: Record<string, unknown>;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

interface ChannelRecord extends Omit<ChannelRow, 'settings' | 'credentials'> {
  settings: string;
  credentials: string;
}

export interface NewChannel {
  companyId: number;
  provider: string;
  state: ChannelState;
  settings: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

/**
 * The row with its JSON columns parsed, written out field by field: every row then has one shape.
 * A spread of the driver's row would do the same until frozen, when V8 gives each spread copy a
 * hidden class of its own (one per cached channel), and every read of a cached row's field would
 * then meet as many shapes as there are channels.
 */
const fromRecord = (r: ChannelRecord): ChannelRow => ({
  id: r.id,
  company_id: r.company_id,
  provider: r.provider,
  state: r.state,
  settings: JSON.parse(r.settings) as Record<string, unknown>,
  credentials: JSON.parse(r.credentials) as Record<string, unknown>,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

/**
 * Channels whose rows the callback caches keep (findLiveCached, CallbackStore.getCached), the most
 * recently used. A cache only saves a read by primary key (about 10 µs), so it is sized for the
 * channels that are busy at once, not for every channel there is: its memory (about 1 KB a channel
 * with its settings) stays the same with 100 companies or 100,000.
 */
export const CACHED_CHANNELS = 4_096;

/** A cached row is shared by every caller: frozen, so that no caller can change it for the others. */
function frozen(row: ChannelRow): ChannelRow {
  Object.freeze(row.settings);
  Object.freeze(row.credentials);
  return Object.freeze(row);
}

/** Channels of a company. Deleted channels are kept (disabled) but no longer listed or found. */
export class ChannelStore {
  /**
   * Committed live channels by id, for the provider callbacks (findLiveCached). This store is the
   * only writer of the table in the process that owns the store (docs/design.md section 2: one core per
   * store), and every write drops the entry of its channel before it runs; rows are added only
   * outside a transaction, so an entry never holds a write that could still be rolled back.
   */
  private readonly live = new LRUCache<number, ChannelRow>({ max: CACHED_CHANNELS });
  private readonly insertOne;
  private readonly byId;
  private readonly liveById;
  private readonly liveByProvider;
  private readonly pageAsc;
  private readonly pageDesc;
  private readonly setConnection;
  private readonly markDeleted;
  private readonly changeState;
  private readonly offsetPage;
  private readonly countLive;
  private readonly accountOffsetPage;
  private readonly countAccountLive;

  constructor(
    private readonly db: Db,
    ids: IdSpace,
  ) {
    this.insertOne = db.prepare<[number, string, ChannelState, string, string, number, number], ChannelRecord>(
      `INSERT INTO channels (id, company_id, provider, state, settings, credentials, created_at, updated_at)
       VALUES (${nextIdSql('channels', ids)}, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    );
    this.byId = db.prepare<[number, number], ChannelRecord>(
      'SELECT * FROM channels WHERE company_id = ? AND id = ? AND deleted_at IS NULL',
    );
    this.liveById = db.prepare<[number], ChannelRecord>('SELECT * FROM channels WHERE id = ? AND deleted_at IS NULL');
    this.liveByProvider = db.prepare<[number, string], ChannelRecord>(
      'SELECT * FROM channels WHERE company_id = ? AND provider = ? AND deleted_at IS NULL',
    );
    this.pageAsc = db.prepare<[number, number, number], ChannelRecord>(
      'SELECT * FROM channels WHERE company_id = ? AND id > ? AND deleted_at IS NULL ORDER BY id ASC LIMIT ?',
    );
    this.pageDesc = db.prepare<[number, number, number], ChannelRecord>(
      'SELECT * FROM channels WHERE company_id = ? AND id < ? AND deleted_at IS NULL ORDER BY id DESC LIMIT ?',
    );
    this.setConnection = db.prepare<[string, string, number, number], ChannelRecord>(
      'UPDATE channels SET settings = ?, credentials = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL RETURNING *',
    );
    this.markDeleted = db.prepare<[number, number, number]>(
      "UPDATE channels SET state = 'disabled', deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL",
    );
    this.changeState = db.prepare<[ChannelState, number, number, ChannelState], ChannelRecord>(
      'UPDATE channels SET state = ?, updated_at = ? WHERE id = ? AND state = ? AND deleted_at IS NULL RETURNING *',
    );
    this.offsetPage = db.prepare<[number, number, number], ChannelRecord>(
      'SELECT * FROM channels WHERE company_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ? OFFSET ?',
    );
    this.countLive = db.prepare<[number], { n: number }>(
      'SELECT count(*) AS n FROM channels WHERE company_id = ? AND deleted_at IS NULL',
    );
    this.accountOffsetPage = db.prepare<[number, number, number], ChannelRecord>(
      `SELECT channels.* FROM channels JOIN companies ON companies.id = channels.company_id
       WHERE companies.account_id = ? AND channels.deleted_at IS NULL ORDER BY channels.id LIMIT ? OFFSET ?`,
    );
    this.countAccountLive = db.prepare<[number], { n: number }>(
      `SELECT count(*) AS n FROM channels JOIN companies ON companies.id = channels.company_id
       WHERE companies.account_id = ? AND channels.deleted_at IS NULL`,
    );
  }

  /** Throws a unique violation (see isUniqueViolation) when the company already has a live channel of the provider. */
  insert(channel: NewChannel, now = Date.now()): ChannelRow {
    const record = this.insertOne.get(
      channel.companyId,
      channel.provider,
      channel.state,
      JSON.stringify(channel.settings),
      JSON.stringify(channel.credentials),
      now,
      now,
    )!;
    return fromRecord(record);
  }

  find(companyId: number, id: number): ChannelRow | undefined {
    const record = this.byId.get(companyId, id);
    return record === undefined ? undefined : fromRecord(record);
  }

  /** A live channel by id alone (provider callbacks and the admin API know no company). */
  findLive(id: number): ChannelRow | undefined {
    const record = this.liveById.get(id);
    return record === undefined ? undefined : fromRecord(record);
  }

  /**
   * findLive from a cache of committed rows (frozen: never change the row answered). Inside a
   * transaction it answers what findLive would: an entry is dropped by every write to its channel.
   */
  findLiveCached(id: number): ChannelRow | undefined {
    const cached = this.live.get(id);
    if (cached !== undefined) return cached;
    const row = this.findLive(id);
    if (row === undefined || this.db.inTransaction) return row;
    this.live.set(id, frozen(row));
    return row;
  }

  /** The company's live channel of a provider (there is at most one). */
  findByProvider(companyId: number, provider: string): ChannelRow | undefined {
    const record = this.liveByProvider.get(companyId, provider);
    return record === undefined ? undefined : fromRecord(record);
  }

  list(companyId: number, page: IdPage): PageOf<ChannelRow> {
    const records =
      page.direction === 'asc'
        ? this.pageAsc.all(companyId, page.afterId ?? 0, page.limit + 1)
        : this.pageDesc.all(companyId, page.afterId ?? Number.MAX_SAFE_INTEGER, page.limit + 1);
    return takePage(records.map(fromRecord), page.limit);
  }

  /** Replaces settings and credentials of a live channel; undefined when it is gone. */
  updateConnection(
    id: number,
    settings: Record<string, unknown>,
    credentials: Record<string, unknown>,
    now = Date.now(),
  ): ChannelRow | undefined {
    this.live.delete(id);
    const record = this.setConnection.get(JSON.stringify(settings), JSON.stringify(credentials), now, id);
    return record === undefined ? undefined : fromRecord(record);
  }

  /** Disables and hides a live channel; false when it was already gone. */
  delete(id: number, now = Date.now()): boolean {
    this.live.delete(id);
    return this.markDeleted.run(now, now, id).changes === 1;
  }

  /**
   * Moves a live channel from one state to another; undefined when it is gone or no longer in
   * `from` (the caller checked the transition, this keeps a concurrent change from being overwritten).
   */
  setState(id: number, from: ChannelState, to: ChannelState, now = Date.now()): ChannelRow | undefined {
    this.live.delete(id);
    const record = this.changeState.get(to, now, id, from);
    return record === undefined ? undefined : fromRecord(record);
  }

  /** Live channels of a company by id, one page by offset (v2 lists), with the count of all of them. */
  listPage(companyId: number, { offset, limit }: PageWindow): { rows: ChannelRow[]; total: number } {
    return {
      rows: this.offsetPage.all(companyId, limit, offset).map(fromRecord),
      total: this.countLive.get(companyId)!.n,
    };
  }

  /** Live channels of every company of an account by id, one page by offset, with the count of all of them. */
  listForAccount(accountId: number, { offset, limit }: PageWindow): { rows: ChannelRow[]; total: number } {
    return {
      rows: this.accountOffsetPage.all(accountId, limit, offset).map(fromRecord),
      total: this.countAccountLive.get(accountId)!.n,
    };
  }
}
