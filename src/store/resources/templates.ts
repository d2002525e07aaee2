import type { Db } from '../engine/db.js';
import type { PageWindow } from '../../lib/paging.js';

export interface TemplateRow {
  id: number;
  company_id: number;
  channel_id: number | null;
  name: string;
  body: string;
  biz_template_id: string;
  language: string | null;
  substitutions_count: number;
  header_content_type: string | null;
  header: string | null;
  namespace: string | null;
  position: number;
  created_at: number;
}

export type NewTemplate = Omit<TemplateRow, 'id' | 'created_at'> & { created_at?: number };

export type TemplateSort = { field: 'created_at' | 'position'; direction: 'asc' | 'desc' };

/** Business message templates (synchronised from the provider). */
export class TemplateStore {
  private readonly insertOne;
  private readonly byBizId;
  private readonly pages: Record<string, { all(ids: string, limit: number, offset: number): TemplateRow[] }>;
  private readonly count;
  private readonly upsertOne;
  private readonly removeOthersOf;

  constructor(db: Db) {
    this.insertOne = db.prepare(
      `INSERT INTO templates (company_id, channel_id, name, body, biz_template_id, language, substitutions_count,
         header_content_type, header, namespace, position, created_at)
       VALUES (@company_id, @channel_id, @name, @body, @biz_template_id, @language, @substitutions_count,
         @header_content_type, @header, @namespace, @position, @created_at) RETURNING *`,
    );
    this.byBizId = db.prepare<[number, string], TemplateRow>(
      'SELECT * FROM templates WHERE company_id = ? AND biz_template_id = ?',
    );
    // One statement per sort order; company ids travel as one JSON array parameter.
    const inCompanies = 'company_id IN (SELECT value FROM json_each(?))';
    this.pages = {};
    for (const column of ['created_at', 'position'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        this.pages[`${column} ${direction}`] = db.prepare<[string, number, number], TemplateRow>(
          `SELECT * FROM templates WHERE ${inCompanies} ORDER BY ${column} ${direction}, id ${direction} LIMIT ? OFFSET ?`,
        );
      }
    }
    this.count = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM templates WHERE ${inCompanies}`);
    this.upsertOne = db.prepare(
      `INSERT INTO templates (company_id, channel_id, name, body, biz_template_id, language, substitutions_count,
         header_content_type, header, namespace, position, created_at)
       VALUES (@company_id, @channel_id, @name, @body, @biz_template_id, @language, @substitutions_count,
         @header_content_type, @header, @namespace, @position, @created_at)
       ON CONFLICT (company_id, biz_template_id) DO UPDATE SET channel_id = excluded.channel_id, name = excluded.name,
         body = excluded.body, language = excluded.language, substitutions_count = excluded.substitutions_count,
         header_content_type = excluded.header_content_type, header = excluded.header, namespace = excluded.namespace,
         position = excluded.position
       RETURNING *`,
    );
    this.removeOthersOf = db.prepare<[number, string]>(
      'DELETE FROM templates WHERE channel_id = ? AND biz_template_id NOT IN (SELECT value FROM json_each(?))',
    );
  }

  insert(template: NewTemplate, now = Date.now()): TemplateRow {
    return this.insertOne.get({ ...template, created_at: template.created_at ?? now }) as TemplateRow;
  }

  /** A template as the provider lists it now: inserted, or brought up to date (its id and created_at stay). */
  upsert(template: NewTemplate, now = Date.now()): TemplateRow {
    return this.upsertOne.get({ ...template, created_at: template.created_at ?? now }) as TemplateRow;
  }

  /** Removes the channel's templates the provider no longer lists; answers how many. */
  removeOthers(channelId: number, keepBizIds: readonly string[]): number {
    return this.removeOthersOf.run(channelId, JSON.stringify(keepBizIds)).changes;
  }

  findByBizId(companyId: number, bizTemplateId: string): TemplateRow | undefined {
    return this.byBizId.get(companyId, bizTemplateId);
  }

  /** A page of the templates of the given companies, in the given order (ties broken by id). */
  list(
    companyIds: readonly number[],
    sort: TemplateSort,
    { limit, offset }: PageWindow,
  ): { rows: TemplateRow[]; total: number } {
    const ids = JSON.stringify(companyIds);
    const page = this.pages[`${sort.field} ${sort.direction}`]!;
    return { rows: page.all(ids, limit, offset), total: this.count.get(ids)!.n };
  }
}
