import type { Db } from '../engine/db.js';
import { nextIdSql, type IdSpace } from '../engine/id-space.js';
import { takePage, type IdPage, type PageOf } from '../../lib/paging.js';

export interface CompanyRow {
  id: number;
  account_id: number;
  name: string;
  phone: string | null;
  description: string | null;
  webhook_url: string | null;
  hidden: number;
  /** Days a message is kept; null: the operator's default (GATEWAY_MESSAGE_RETENTION). */
  message_retention_days: number | null;
  created_at: number;
  updated_at: number;
}

export interface NewCompany {
  accountId: number;
  name: string;
  phone: string | null;
  description: string | null;
  webhookUrl: string | null;
}

export interface CompanyChanges {
  name?: string;
  phone?: string | null;
  description?: string | null;
  webhookUrl?: string | null;
  hidden?: boolean;
}

/** Companies, always read through their owning account so one account never sees another's. */
export class CompanyStore {
  private readonly insertOne;
  private readonly byId;
  private readonly anyById;
  private readonly idsOfAccount;
  private readonly updateOne;
  private readonly pageAsc;
  private readonly pageDesc;
  private readonly updateInTransaction;
  private readonly setRetention;

  constructor(db: Db, ids: IdSpace) {
    this.insertOne = db.prepare<
      [number, string, string | null, string | null, string | null, number, number],
      CompanyRow
    >(
      `INSERT INTO companies (id, account_id, name, phone, description, webhook_url, created_at, updated_at)
       VALUES (${nextIdSql('companies', ids)}, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    );
    this.byId = db.prepare<[number, number], CompanyRow>('SELECT * FROM companies WHERE account_id = ? AND id = ?');
    this.anyById = db.prepare<[number], { id: number }>('SELECT id FROM companies WHERE id = ?');
    this.idsOfAccount = db.prepare<[number], { id: number }>(
      'SELECT id FROM companies WHERE account_id = ? ORDER BY id',
    );
    this.updateOne = db.prepare<
      {
        id: number;
        name: string;
        phone: string | null;
        description: string | null;
        webhook_url: string | null;
        hidden: number;
        updated_at: number;
      },
      CompanyRow
    >(
      `UPDATE companies SET name = @name, phone = @phone, description = @description, webhook_url = @webhook_url,
         hidden = @hidden, updated_at = @updated_at
       WHERE id = @id RETURNING *`,
    );
    this.pageAsc = db.prepare<[number, number, number], CompanyRow>(
      'SELECT * FROM companies WHERE account_id = ? AND id > ? ORDER BY id ASC LIMIT ?',
    );
    this.pageDesc = db.prepare<[number, number, number], CompanyRow>(
      'SELECT * FROM companies WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    );
    this.updateInTransaction = db.transaction(this.applyUpdate.bind(this));
    this.setRetention = db.prepare<[number | null, number, number, number], CompanyRow>(
      'UPDATE companies SET message_retention_days = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING *',
    );
  }

  /** Sets the company's message retention in days (null: the operator's default); undefined when it is not the account's. */
  setMessageRetention(accountId: number, id: number, days: number | null, now = Date.now()): CompanyRow | undefined {
    return this.setRetention.get(days, now, accountId, id);
  }

  insert(company: NewCompany, now = Date.now()): CompanyRow {
    return this.insertOne.get(
      company.accountId,
      company.name,
      company.phone,
      company.description,
      company.webhookUrl,
      now,
      now,
    )!;
  }

  /** Ids of every company of the account. */
  idsOf(accountId: number): number[] {
    return this.idsOfAccount.all(accountId).map((r) => r.id);
  }

  /** Whether a company of any account has this id (the admin API sees every account). */
  exists(id: number): boolean {
    return this.anyById.get(id) !== undefined;
  }

  find(accountId: number, id: number): CompanyRow | undefined {
    return this.byId.get(accountId, id);
  }

  /** Applies the given changes to a company of the account; undefined when it is not the account's. */
  update(accountId: number, id: number, changes: CompanyChanges, now = Date.now()): CompanyRow | undefined {
    return this.updateInTransaction(accountId, id, changes, now);
  }

  private applyUpdate(accountId: number, id: number, changes: CompanyChanges, now: number): CompanyRow | undefined {
    const row = this.find(accountId, id);
    if (row === undefined) return undefined;
    return this.updateOne.get({
      id,
      name: changes.name ?? row.name,
      phone: changes.phone === undefined ? row.phone : changes.phone,
      description: changes.description === undefined ? row.description : changes.description,
      webhook_url: changes.webhookUrl === undefined ? row.webhook_url : changes.webhookUrl,
      hidden: changes.hidden === undefined ? row.hidden : Number(changes.hidden),
      updated_at: now,
    })!;
  }

  list(accountId: number, page: IdPage): PageOf<CompanyRow> {
    const rows =
      page.direction === 'asc'
        ? this.pageAsc.all(accountId, page.afterId ?? 0, page.limit + 1)
        : this.pageDesc.all(accountId, page.afterId ?? Number.MAX_SAFE_INTEGER, page.limit + 1);
    return takePage(rows, page.limit);
  }
}
