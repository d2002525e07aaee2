import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { companySettingsBody, companySettingsQuery } from '../../../schemas/v2/company-settings.js';
import { NotFound } from '../../errors/errors.js';
import { accountOf, type AppState } from '../../http/context.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { CompanyRow } from '../../store/resources/companies.js';
import type { Store } from '../../store/store.js';
import { findCompany } from '../lookup.js';
import { matchPathCompany } from './auths.js';

const settingsQuery = validator(companySettingsQuery);
const settingsBody = validator(companySettingsBody);

/**
 * A company's settings (docs/api.md, "Data lifecycle"): today its message retention, in days, or
 * null for the operator's default (GATEWAY_MESSAGE_RETENTION, `defaultRetentionMs`).
 */
export function companySettingsRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  defaultRetentionMs: number | null,
): void {
  const base = '/api/p2/companies/:companyId/settings';
  const present = (company: CompanyRow) => ({
    settings: {
      company_id: company.id,
      message_retention_days: company.message_retention_days,
      default_message_retention_days: defaultRetentionMs === null ? null : defaultRetentionMs / 86_400_000,
    },
  });

  router.get(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    matchPathCompany(company, readInput(ctx, settingsQuery).company_id);
    ctx.body = present(company);
  });

  router.put(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, settingsBody);
    matchPathCompany(company, input.company_id);
    const updated = store.transaction(() =>
      store.companies.setMessageRetention(accountOf(ctx).id, company.id, input.message_retention_days),
    );
    if (updated === undefined) throw new NotFound(`Company ${company.id} was not found.`);
    ctx.body = present(updated);
  });
}
