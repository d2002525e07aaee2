import type { Db } from '../engine/db.js';

/** The kinds of rows a company's export holds, in the order it writes them. */
export const EXPORT_KINDS = ['channel', 'contact', 'conversation', 'message', 'attachment', 'webhook'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/**
 * The columns each kind exports: never a channel's credentials or settings, an endpoint's secrets,
 * or an attachment's storage key (the capability of its file URL) and provider media.
 */
const COLUMNS: Record<ExportKind, { table: string; columns: string }> = {
  channel: { table: 'channels', columns: 'id, provider, state, created_at, updated_at, deleted_at' },
  contact: {
    table: 'contacts',
    columns:
      'id, channel_id, external_id, external_public_id, name, phone, avatar_url, is_group, created_at, updated_at',
  },
  conversation: {
    table: 'conversations',
    columns:
      'id, channel_id, contact_id, operational_state, replied_state, assignee_id, note, last_message_id, created_at, last_updated_at',
  },
  message: {
    table: 'messages',
    columns:
      'id, channel_id, conversation_id, contact_id, external_id, replied_to_id, income, status, text, reactions, details, delivery, deleted, send_to_crm, created_at, external_created_at',
  },
  attachment: {
    table: 'attachments',
    columns: 'id, message_id, file_name, mime_type, size, width, height, push_to_talk, origin, created_at',
  },
  webhook: {
    table: 'webhook_endpoints',
    columns: 'id, source, url, event_types, active, disabled_reason, created_at, updated_at',
  },
};

type ExportRow = Record<string, unknown> & { id: number };
type ExportPage = { all(companyId: number, after: number, limit: number): ExportRow[] };

/**
 * Reads a company's rows kind by kind, a page at a time in id order (keyset): an export never holds
 * the company in memory, and the connection is free between pages for the daemon's other work.
 */
export class CompanyExportStore {
  private readonly pages;
  private readonly counts;
  private readonly company;

  constructor(db: Db) {
    const pages = {} as Record<ExportKind, ExportPage>;
    for (const kind of EXPORT_KINDS) {
      const { table, columns } = COLUMNS[kind];
      const statement = db.prepare<[number, number, number], ExportRow>(
        `SELECT ${columns} FROM ${table} WHERE company_id = ? AND id > ? ORDER BY id LIMIT ?`,
      );
      pages[kind] = { all: (companyId, after, limit) => statement.all(companyId, after, limit) };
    }
    this.pages = pages;
    this.counts = db.prepare<{ company: number }, { n: number }>(
      `SELECT ${EXPORT_KINDS.map((kind) => `(SELECT count(*) FROM ${COLUMNS[kind].table} WHERE company_id = @company)`).join(' + ')} AS n`,
    );
    this.company = db.prepare<[number], Record<string, unknown>>(
      'SELECT id, account_id, name, phone, description, webhook_url, hidden, message_retention_days, created_at, updated_at FROM companies WHERE id = ?',
    );
  }

  /** The company's own row; undefined when there is none. */
  companyRow(id: number): Record<string, unknown> | undefined {
    return this.company.get(id);
  }

  /** How many rows of every kind the company has (the export's length, for its progress). */
  rowCount(companyId: number): number {
    return this.counts.get({ company: companyId })!.n;
  }

  /** The next `limit` rows of a kind past id `after`. */
  page(
    kind: ExportKind,
    companyId: number,
    after: number,
    limit: number,
  ): (Record<string, unknown> & { id: number })[] {
    return this.pages[kind].all(companyId, after, limit);
  }
}
