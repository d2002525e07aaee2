import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companyCreateBody, companyUpdateBody } from '../../../schemas/v1/companies.js';
import { v1PageQuery } from '../../../schemas/v1/paging.js';
import { recordWebhookUrlTest } from '../../domain/events.js';
import { nextPageToken, toIdPage } from '../../lib/paging.js';
import { accountOf, type AppState } from '../../http/context.js';
import { NotFound, ValidationFailed } from '../../errors/errors.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Store } from '../../store/store.js';
import type { CompanyRow } from '../../store/resources/companies.js';
import { MAX_ENDPOINTS_PER_COMPANY, syncCompanyUrl } from '../../domain/webhook-endpoints.js';
import { findCompany } from '../lookup.js';
import { textOrNull } from '../../http/params.js';
import { presentCompany } from '../../presenters/v1.js';

const pageQuery = validator(v1PageQuery);
const createBody = validator(companyCreateBody);
const updateBody = validator(companyUpdateBody);

/**
 * Keeps the company's webhook_url mirrored as its `company` webhook endpoint (docs/design.md section 9),
 * inside the transaction of the company change: an address that would be a sixth endpoint is a 422
 * on webhook_url and rolls the change back. A new or changed address gets the documented test POST.
 */
function mirrorWebhookUrl(store: Store, company: CompanyRow): void {
  const before = store.webhooks.companyEndpoint(company.id)?.url;
  const sync = syncCompanyUrl(store, company.id, company.webhook_url);
  if (sync.status === 'limit_reached') {
    throw ValidationFailed.field(
      'webhook_url',
      `webhook_url cannot be set: company ${company.id} already has ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints, the most a company may have (webhook_url counts as one); delete one first`,
    );
  }
  if (sync.endpoint !== null && sync.endpoint.url !== before) recordWebhookUrlTest(store.outbox, company.id);
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
    const company = store.transaction(() => {
      const row = store.companies.insert({
        accountId: accountOf(ctx).id,
        name: input.name,
        phone: textOrNull(input.phone) ?? null,
        description: textOrNull(input.description) ?? null,
        webhookUrl: textOrNull(input.webhook_url) ?? null,
      });
      mirrorWebhookUrl(store, row);
      return row;
    });
    ctx.status = 201;
    ctx.body = { status: 'created', data: { external_id: company.id } };
  });

  router.put('/p1/companies/:id', auth, (ctx) => {
    const company = findCompany(store, ctx, 'id');
    const input = readInput(ctx, updateBody);
    const updated = store.transaction(() => {
      const row = store.companies.update(company.account_id, company.id, {
        name: input.name,
        phone: textOrNull(input.phone),
        description: textOrNull(input.description),
        webhookUrl: textOrNull(input.webhook_url),
        hidden: input.hidden,
      });
      if (row !== undefined && input.webhook_url !== undefined) mirrorWebhookUrl(store, row);
      return row;
    });
    if (updated === undefined) throw new NotFound(`Company ${company.id} was not found.`);
    ctx.body = { status: 'updated', data: { external_id: updated.id } };
  });
}
