import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companyCreateBody, companyUpdateBody } from '../../../schemas/v1/companies.js';
import { v1PageQuery } from '../../../schemas/v1/paging.js';
import { nextPageToken, toIdPage } from '../../domain/paging.js';
import { accountOf, type AppState, type RouteContext } from '../../http/context.js';
import { NotFound } from '../../http/errors.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import type { CompanyRow } from '../../store/companies.js';
import { pathId, textOrNull } from '../params.js';
import { presentCompany } from './presenters.js';

const pageQuery = validator(v1PageQuery);
const createBody = validator(companyCreateBody);
const updateBody = validator(companyUpdateBody);

/** The account's company named by the `:companyId` or `:id` path parameter, else 404. */
export function findCompany(store: Store, ctx: RouteContext, param: string): CompanyRow {
  const id = pathId(ctx.params[param], 'Company');
  const company = store.companies.find(accountOf(ctx).id, id);
  if (company === undefined) throw new NotFound(`Company ${id} was not found.`);
  return company;
}

/** v1 companies: list, create, update (contract section 4, "v1 Companies"). */
export function companyRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  router.get('/p1/companies', auth, (ctx) => {
    const input = readInput(ctx, pageQuery);
    const page = store.companies.list(accountOf(ctx).id, toIdPage(input));
    ctx.body = {
      status: 'ok',
      data: { companies: page.rows.map(presentCompany), next_page: nextPageToken(page.rows, page.hasMore) },
    };
  });

  router.post('/p1/companies', auth, (ctx) => {
    const input = readInput(ctx, createBody);
    const company = store.companies.insert({
      accountId: accountOf(ctx).id,
      name: input.name,
      phone: textOrNull(input.phone) ?? null,
      description: textOrNull(input.description) ?? null,
      webhookUrl: textOrNull(input.webhook_url) ?? null,
    });
    ctx.status = 201;
    ctx.body = { status: 'created', data: { external_id: company.id } };
  });

  router.put('/p1/companies/:id', auth, (ctx) => {
    const company = findCompany(store, ctx, 'id');
    const input = readInput(ctx, updateBody);
    const updated = store.companies.update(company.account_id, company.id, {
      name: input.name,
      phone: textOrNull(input.phone),
      description: textOrNull(input.description),
      webhookUrl: textOrNull(input.webhook_url),
      hidden: input.hidden,
    });
    if (updated === undefined) throw new NotFound(`Company ${company.id} was not found.`);
    ctx.body = { status: 'updated', data: { external_id: updated.id } };
  });
}
