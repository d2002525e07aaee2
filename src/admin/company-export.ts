import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companyExportLines } from '../domain/company-export.js';
import { NotFound } from '../errors/errors.js';
import type { AppState } from '../http/context.js';
import { pathId } from '../http/params.js';
import type { Store } from '../store/store.js';

/**
 * GET /admin/companies/<id>/export (docs/admin.md): the company's data as NDJSON, streamed as the
 * client reads it, a page of rows at a time (src/domain/company-export.ts).
 */
export function companyExportRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  router.get('/admin/companies/:companyId/export', auth, (ctx) => {
    const companyId = pathId(ctx.params.companyId, 'Company');
    const exported = companyExportLines(store, companyId);
    if (exported === undefined) throw new NotFound(`Company ${companyId} was not found.`);
    ctx.type = 'application/x-ndjson';
    ctx.set('x-export-lines', String(exported.total));
    ctx.body = Readable.from(exported.lines);
  });
}
