import { EXPORT_KINDS } from '../store/resources/company-export.js';
import type { Store } from '../store/store.js';

/** Columns that hold JSON text: exported as the values they hold. */
const JSON_COLUMNS = new Set(['reactions', 'details', 'event_types']);
/** Columns of unix milliseconds: exported as ISO 8601. */
const TIME_COLUMNS = new Set(['created_at', 'updated_at', 'deleted_at', 'last_updated_at', 'external_created_at']);

/**
 * A company's data as NDJSON lines, one object each with its `kind`: the company, then its channels,
 * contacts, conversations, messages, attachments' metadata and webhook endpoints, without any
 * credential, secret or file capability (src/store/resources/company-export.ts). Pages of `pageSize`
 * rows, so that neither the caller nor the store holds the company at once; a generator, read as
 * fast as its consumer writes. Undefined when the company does not exist.
 */
export function companyExportLines(
  store: Store,
  companyId: number,
  pageSize = 500,
): { total: number; lines: Generator<string> } | undefined {
  const company = store.companyExport.companyRow(companyId);
  if (company === undefined) return undefined;
  const total = 1 + store.companyExport.rowCount(companyId);
  function* lines(): Generator<string> {
    yield line('company', company!);
    for (const kind of EXPORT_KINDS) {
      for (let after = 0; ;) {
        const rows = store.companyExport.page(kind, companyId, after, pageSize);
        for (const row of rows) yield line(kind, row);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1]!.id;
      }
    }
  }
  return { total, lines: lines() };
}

function line(kind: string, row: Record<string, unknown>): string {
  const object: Record<string, unknown> = { kind };
  for (const [column, value] of Object.entries(row)) {
    if (JSON_COLUMNS.has(column) && typeof value === 'string') object[column] = JSON.parse(value) as unknown;
    else if (TIME_COLUMNS.has(column) && typeof value === 'number') object[column] = new Date(value).toISOString();
    else object[column] = value;
  }
  return `${JSON.stringify(object)}\n`;
}
