import type { Db } from './db.js';
import type { PageWindow } from './pagination.js';

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

  constructor(db: Db) {
    this.insertOne = db.prepare(
      `INSERT INTO templates (company_id, channel_id, name, body, biz_template_id, language, substitutions_count,
         header_content_type, header, namespace, position, created_at)
       VALUES (@company_id, @channel_id, @name, @body, @biz_template_id, @language, @substitutions_count,
         @header_content_type, @header, @namespace, @position, @created_at) RETURNING *`,
    );
    this.byBizId = db.prepare<[number, string], TemplateRow>('SELECT * FROM templates WHERE company_id = ? AND biz_template_id = ?');
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
  }

  insert(template: NewTemplate, now = Date.now()): TemplateRow {
    return this.insertOne.get({ ...template, created_at: template.created_at ?? now }) as TemplateRow;
  }

  findByBizId(companyId: number, bizTemplateId: string): TemplateRow | undefined {
    return this.byBizId.get(companyId, bizTemplateId);
  }

  /** A page of the templates of the given companies, in the given order (ties broken by id). */
  list(companyIds: readonly number[], sort: TemplateSort, { limit, offset }: PageWindow): { rows: TemplateRow[]; total: number } {
    const ids = JSON.stringify(companyIds);
    const page = this.pages[`${sort.field} ${sort.direction}`]!;
    return { rows: page.all(ids, limit, offset), total: this.count.get(ids)!.n };
  }
}
