import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { channelCreateBodies, type Provider } from '../../../schemas/v1/channels.js';
import {
  accountAuthListQuery,
  authActionBody,
  authCreateCommon,
  authEnableBody,
  authListQuery,
  type SyncPeriod,
} from '../../../schemas/v2/auths.js';
import { createAuth, deleteAuth, planAuthAction, type AuthAction } from '../../domain/auths.js';
import { connectionFor, OAUTH_PROVIDERS, oauthConnection, withSyncPeriod } from '../../domain/channels.js';
import { recordEvent } from '../../domain/events.js';
import { accountOf, type AppState, type RouteContext } from '../../http/context.js';
import { Conflict, NotFound, ValidationFailed, type FieldProblem } from '../../errors/errors.js';
import { readInput, requestInput } from '../../http/input.js';
import { validator, type Validator } from '../../http/validate.js';
import type { ChannelRow } from '../../store/resources/channels.js';
import type { CompanyRow } from '../../store/resources/companies.js';
import type { Store } from '../../store/store.js';
import { createBodies, providerBody } from '../channel-input.js';
import { findChannel, findCompany } from '../lookup.js';
import { toMeta, toWindow } from '../../lib/paging.js';
import { confirmationMethod } from '../../presenters/auth.js';
import { authObjectOf, authObjectsOf } from '../../domain/auth-object.js';
import type { ConnectionFlows } from '../../connectors/flows.js';

type Input = Record<string, unknown>;

const listQuery = validator(authListQuery);
const accountListQuery = validator(accountAuthListQuery);
const createCommon = validator(authCreateCommon);
const actionBody = validator(authActionBody);
const enableBody = validator(authEnableBody);

/**
 * v2 auths: the v2 face of the channel entity (contract section 4 "v2 Auths", docs/design.md section 9
 * for the paths). Every state change writes its auth event (contract section 6) in the same
 * transaction.
 */
export function authRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  flows: ConnectionFlows,
): void {
  const base = '/api/p2/companies/:companyId/auths';

  router.get('/api/p2/auths', auth, (ctx) => {
    const input = readInput(ctx, accountListQuery);
    const { rows, total } = store.channels.listForAccount(accountOf(ctx).id, toWindow(input));
    ctx.body = { auths: authObjectsOf(store, rows), meta: toMeta(input.page, input.per_page, total) };
  });

  router.get(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, listQuery);
    matchPathCompany(company, input.company_id);
    const { rows, total } = store.channels.listPage(company.id, toWindow(input));
    ctx.body = { auths: authObjectsOf(store, rows), meta: toMeta(input.page, input.per_page, total) };
  });

  router.post(base, auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const { provider, input, oauth, syncPeriod } = readCreate(ctx, company);
    const now = new Date();
    const connection = withSyncPeriod(
      provider,
      oauth ? oauthConnection() : connectionFor(provider, input, now),
      syncPeriod,
      now,
    );
    const created = createAuth(store, { companyId: company.id, provider, ...connection });
    // Creating starts the connection: the answer (and an auth.update) carries its qr, code or oauth_provider_url.
    const signal = await flows.startAfterCreate(created);
    flows.syncTemplatesLater(created);
    ctx.status = 201;
    ctx.body = { auth: { ...authObjectOf(store, store.channels.findLive(created.id) ?? created), ...signal } };
  });

  router.get(`${base}/:id`, auth, (ctx) => {
    const { company, channel: found } = findChannel(store, ctx, 'Auth');
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    ctx.body = { auth: authObjectOf(store, found) };
  });

  router.delete(`${base}/:id`, auth, (ctx) => {
    const { company, channel: found } = findChannel(store, ctx, 'Auth');
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    const removed = deleteAuth(store, found);
    if (removed === undefined) throw new NotFound(`Auth ${found.id} was not found.`);
    flows.disconnectLater(found);
    ctx.body = { auth: authObjectOf(store, removed) };
  });

  router.post(`${base}/:id/confirm`, auth, async (ctx) => {
    ctx.body = { auth: await changeState(store, flows, ctx, 'confirm', actionBody) };
  });
  for (const method of ['put', 'patch'] as const) {
    router[method](`${base}/:id/enable`, auth, async (ctx) => {
      ctx.body = { auth: await changeState(store, flows, ctx, 'enable', enableBody) };
    });
    router[method](`${base}/:id/disable`, auth, async (ctx) => {
      ctx.body = { auth: await changeState(store, flows, ctx, 'disable', actionBody) };
    });
  }
}

/**
 * Runs an action on an auth: the check, then either the state change and its `update` event in one
 * transaction, or the connector's step (confirm: a fresh QR, pairing code or OAuth address; enable
 * with a code: the provider verifies it), whose news is recorded like a callback's.
 */
async function changeState(
  store: Store,
  flows: ConnectionFlows,
  ctx: RouteContext,
  action: AuthAction,
  body: Validator<{ company_id?: number; code?: string | number }>,
): Promise<Record<string, unknown>> {
  const { company, channel: found } = findChannel(store, ctx, 'Auth');
  const input = readInput(ctx, body);
  matchPathCompany(company, input.company_id);
  const plan = planAuthAction(found, action, input.code);
  if (plan.kind === 'refuse') throw new Conflict(plan.reason);
  if (plan.kind === 'needs_code') throw ValidationFailed.field('code', plan.reason);
  if (plan.kind === 'needs_connector') {
    const signal =
      action === 'enable' ? await verifyCode(flows, found, String(input.code)) : await startConfirmation(flows, found);
    const now = store.channels.find(company.id, found.id);
    if (now === undefined) throw new NotFound(`Auth ${found.id} was not found.`);
    return { ...authObjectOf(store, now), ...signal };
  }
  return authObjectOf(
    store,
    store.transaction(() => {
      const current = store.channels.find(company.id, found.id);
      if (current === undefined) throw new NotFound(`Auth ${found.id} was not found.`);
      if (current.state !== found.state) throw new Conflict(`Auth ${found.id} changed meanwhile; try again.`);
      const now = Date.now();
      const moved = store.channels.setState(current.id, current.state, plan.to, now);
      if (moved === undefined) throw new Conflict(`Auth ${found.id} changed meanwhile; try again.`);
      recordEvent(store.outbox, company.id, 'auth', 'update', authObjectOf(store, moved), new Date(now));
      return moved;
    }),
  );
}

/** confirm of an unconfirmed auth: a pairing code to type into the phone, or a fresh session (QR, code sent, OAuth). */
async function startConfirmation(flows: ConnectionFlows, auth: ChannelRow): Promise<Record<string, unknown>> {
  if (confirmationMethod(auth) === 'pairing_code') {
    const answer = await flows.requestCode(auth, {});
    return typeof answer.code === 'string' ? { code: answer.code } : {};
  }
  return { ...(await flows.start(auth)) };
}

/** enable with the code the provider sent: the provider's answer; follow-ups (two-factor) beside the auth. */
async function verifyCode(flows: ConnectionFlows, auth: ChannelRow, code: string): Promise<Record<string, unknown>> {
  const answer = await flows.confirm(auth, { type: 'code', code });
  if (answer.two_factor_requires !== undefined) return { two_factor_requires: answer.two_factor_requires };
  if (answer.confirmation_requires !== undefined) return { confirmation_requires: answer.confirmation_requires };
  return {};
}

/** A `company_id` sent beside a company path must name that company. */
export function matchPathCompany(company: CompanyRow, companyId: number | undefined): void {
  if (companyId !== undefined && companyId !== company.id) {
    throw ValidationFailed.field('company_id', `company_id must be the company of the path (${company.id})`);
  }
}

/**
 * The create request: company check, provider, then the provider's variant, every failing field of
 * these passes answered together in one 422.
 */
function readCreate(
  ctx: RouteContext,
  company: CompanyRow,
): { provider: Provider; input: Input; oauth: boolean; syncPeriod: SyncPeriod | undefined } {
  const problems = new Map<string, FieldProblem>();
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      for (const problem of error.problems) if (!problems.has(problem.field)) problems.set(problem.field, problem);
      return undefined;
    }
  };
  const common = collect(() => readInput(ctx, createCommon));
  collect(() => matchPathCompany(company, common?.company_id));
  const provider = collect(() => readInput(ctx, providerBody).provider);
  const oauth = provider !== undefined && isOAuthCreate(ctx, provider);
  const input = provider === undefined ? undefined : oauth ? {} : collect(() => readVariant(ctx, provider));
  if (provider === undefined || input === undefined || problems.size > 0)
    throw new ValidationFailed([...problems.values()]);
  return { provider, input, oauth, syncPeriod: common?.sync_period };
}

/** A create of an OAuth provider with none of its credential variant's fields: the user authorizes at the provider. */
function isOAuthCreate(ctx: RouteContext, provider: Provider): boolean {
  if (!OAUTH_PROVIDERS.has(provider)) return false;
  const body = requestInput(ctx).data as Input;
  const declared = Object.keys((channelCreateBodies[provider] as { properties?: object }).properties ?? {});
  return declared.every((field) => body[field] === undefined);
}

/**
 * The provider's create variant (the v1 channel variants), reading `phone_number`, the contract's v2
 * name, as `phone`. (connectionFor keeps only the variant's own fields.)
 */
function readVariant(ctx: RouteContext, provider: Provider): Input {
  const { data, mode } = requestInput(ctx);
  const body = data as Input;
  const schema = channelCreateBodies[provider] as { properties?: Record<string, unknown> };
  const aliased = body.phone_number !== undefined && 'phone' in (schema.properties ?? {});
  if (aliased && body.phone !== undefined) {
    throw ValidationFailed.field('phone_number', 'phone_number is another name of phone: send only one of them');
  }
  let input: Input;
  try {
    input = createBodies[provider](aliased ? { ...body, phone: body.phone_number } : body, mode);
  } catch (error) {
    if (!aliased || !(error instanceof ValidationFailed)) throw error;
    throw new ValidationFailed(
      error.problems.map((p) =>
        p.field === 'phone' ? { field: 'phone_number', detail: p.detail.replace(/^phone\b/, 'phone_number') } : p,
      ),
    );
  }
  return input;
}
