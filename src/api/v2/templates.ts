import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { templateListQuery } from '../../../schemas/v2/templates.js';
import { accountOf, type AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import type { TemplateSort } from '../../store/resources/templates.js';
import { toMeta, toWindow } from '../../lib/paging.js';
import { presentTemplate } from '../../presenters/template.js';

const listQuery = validator(templateListQuery);

/** GET /api/p2/biz_templates: the account's business message templates. */
export function templateRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  router.get('/api/p2/biz_templates', auth, (ctx) => {
    const input = readInput(ctx, listQuery);
    // Ids of other accounts' companies are dropped, never looked into.
    const own = new Set(store.companies.idsOf(accountOf(ctx).id));
    const companyIds = input.company_ids === undefined ? [...own] : input.company_ids.filter((id) => own.has(id));
    const sort = sortOf(input.sort);
    const { rows, total } = store.templates.list(companyIds, sort, toWindow(input));
    ctx.body = { biz_templates: rows.map(presentTemplate), meta: toMeta(input.page, input.per_page, total) };
  });
}

function sortOf(sort: { created_at?: 'asc' | 'desc'; position?: 'asc' | 'desc' } | undefined): TemplateSort {
  if (sort?.position !== undefined) return { field: 'position', direction: sort.position };
  return { field: 'created_at', direction: sort?.created_at ?? 'desc' };
}
