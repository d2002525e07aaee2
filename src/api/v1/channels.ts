import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { channelCreateBodies, channelProviderBody, channelUpdateBodies, type Provider } from '../../../schemas/v1/channels.js';
import { v1PageQuery } from '../../../schemas/v1/paging.js';
import { createAuth, deleteAuth } from '../../domain/auths.js';
import { connectionFor, updatedConnection } from '../../domain/channels.js';
import { nextPageToken, toIdPage } from '../../domain/paging.js';
import type { AppState, RouteContext } from '../../http/context.js';
import { Conflict, NotFound, NotImplemented } from '../../http/errors.js';
import { readInput } from '../../http/input.js';
import { validator, type Validator } from '../../http/validate.js';
import type { ChannelRow } from '../../store/channels.js';
import { isUniqueViolation } from '../../store/db.js';
import type { Store } from '../../store/store.js';
import { pathId } from '../params.js';
import { findCompany } from './companies.js';
import { presentChannelItem } from './presenters.js';

type Input = Record<string, unknown>;

const pageQuery = validator(v1PageQuery);
const providerBody = validator(channelProviderBody);
const compileEach = (schemas: Record<Provider, object>) =>
  Object.fromEntries(Object.entries(schemas).map(([provider, schema]) => [provider, validator(schema) as Validator<Input>])) as Record<
    Provider,
    Validator<Input>
  >;
const createBodies = compileEach(channelCreateBodies);
const updateBodies = compileEach(channelUpdateBodies);

/** v1 channels of a company (contract section 4, "v1 Channels"). */
export function channelRoutes(router: Router<AppState>, store: Store, auth: Middleware<AppState>): void {
  const base = '/p1/companies/:companyId/channels';

  router.get(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, pageQuery);
    const page = store.channels.list(company.id, toIdPage(input));
    ctx.body = {
      status: 'ok',
      data: { channels: page.rows.map(presentChannelItem), next_page: nextPageToken(page.rows, page.hasMore) },
    };
  });

  router.post(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const { provider } = readInput(ctx, providerBody);
    const input = readInput(ctx, createBodies[provider]);
    const connection = connectionFor(provider, input, new Date());
    let channel: ChannelRow;
    try {
      channel = createAuth(store, { companyId: company.id, provider, ...connection }, 'v1');
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new Conflict(`Company ${company.id} already has a ${provider} channel; only one channel per provider is allowed.`);
    }
    ctx.status = 201;
    ctx.body = { status: 'created', data: { external_id: channel.id } };
  });

  router.put(`${base}/:id`, auth, (ctx) => {
    const channel = findChannel(store, ctx);
    const input = readInput(ctx, updateBodies[channel.provider as Provider]);
    const { settings, credentials } = updatedConnection(channel, input, new Date());
    const updated = store.channels.updateConnection(channel.id, settings, credentials);
    if (updated === undefined) throw new NotFound(`Channel ${channel.id} was not found.`);
    ctx.body = { status: 'updated', data: { external_id: updated.id } };
  });

  router.delete(`${base}/:id`, auth, (ctx) => {
    const channel = findChannel(store, ctx);
    if (deleteAuth(store, channel) === undefined) throw new NotFound(`Channel ${channel.id} was not found.`);
    ctx.body = { status: 'deleted' };
  });

  // Connector-driven actions (request_code, confirm, page choice, write-first) arrive with the
  // provider connectors; until then they answer 501 for a channel that exists.
  const pending = (action: string) => (ctx: RouteContext) => {
    const channel = findChannel(store, ctx);
    throw new NotImplemented(`${action} is not available yet for ${channel.provider} channels: provider connectors are not configured.`);
  };
  router.post(`${base}/:id/request_code`, auth, pending('request_code'));
  router.post(`${base}/:id/confirm`, auth, pending('confirm'));
  router.post(`${base}/:id/conversations`, auth, pending('Write-first conversations'));
  router.get(`${base}/:id/enable_page_instagram`, auth, pending('enable_page_instagram'));
  router.post(`${base}/:id/enable_page_instagram`, auth, pending('enable_page_instagram'));
}

function findChannel(store: Store, ctx: RouteContext): ChannelRow {
  const company = findCompany(store, ctx, 'companyId');
  const id = pathId(ctx.params.id, 'Channel');
  const channel = store.channels.find(company.id, id);
  if (channel === undefined) throw new NotFound(`Channel ${id} was not found.`);
  return channel;
}
