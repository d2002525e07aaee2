import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Provider } from '../../../schemas/v1/channels.js';
import { v1PageQuery } from '../../../schemas/v1/paging.js';
import { createAuth, deleteAuth } from '../../domain/auths.js';
import { connectionFor, updatedConnection } from '../../domain/channels.js';
import { nextPageToken, toIdPage } from '../../lib/paging.js';
import type { AppState } from '../../http/context.js';
import type { ConnectionFlows } from '../../connectors/flows.js';
import { flowRoutes } from './channel-flows.js';
import { NotFound } from '../../errors/errors.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { Presenters } from '../../presenters/presenters.js';
import type { Store } from '../../store/store.js';
import { createBodies, providerBody, updateBodies } from '../channel-input.js';
import { findChannel, findCompany } from '../lookup.js';
import { presentChannelItem } from '../../presenters/v1.js';

const pageQuery = validator(v1PageQuery);

/** v1 channels of a company (contract section 4, "v1 Channels"). */
export function channelRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  flows: ConnectionFlows,
  presenters: Presenters,
): void {
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

  router.post(base, auth, async (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const { provider } = readInput(ctx, providerBody);
    const input = readInput(ctx, createBodies[provider]);
    const connection = connectionFor(provider, input, new Date());
    const channel = createAuth(store, { companyId: company.id, provider, ...connection }, 'v1');
    // The session starts now: its QR or code reaches the company as v1 webhooks (qr_code, code).
    await flows.startAfterCreate(channel);
    flows.syncTemplatesLater(channel);
    ctx.status = 201;
    ctx.body = { status: 'created', data: { external_id: channel.id } };
  });

  router.put(`${base}/:id`, auth, (ctx) => {
    const { channel } = findChannel(store, ctx, 'Channel');
    const input = readInput(ctx, updateBodies[channel.provider as Provider]);
    const { settings, credentials } = updatedConnection(channel, input, new Date());
    const updated = store.channels.updateConnection(channel.id, settings, credentials);
    if (updated === undefined) throw new NotFound(`Channel ${channel.id} was not found.`);
    ctx.body = { status: 'updated', data: { external_id: updated.id } };
  });

  router.delete(`${base}/:id`, auth, (ctx) => {
    const { channel } = findChannel(store, ctx, 'Channel');
    if (deleteAuth(store, channel) === undefined) throw new NotFound(`Channel ${channel.id} was not found.`);
    flows.disconnectLater(channel);
    ctx.body = { status: 'deleted' };
  });

  const chain = flowRoutes(store, flows, presenters);
  router.post(`${base}/:id/request_code`, auth, chain.requestCode);
  router.post(`${base}/:id/confirm`, auth, chain.confirm);
  router.post(`${base}/:id/conversations`, auth, chain.conversations);
  router.get(`${base}/:id/jobs/:jobId`, auth, chain.job);
  router.get(`${base}/:id/user_exists`, auth, chain.userExists);
  router.get(`${base}/:id/enable_page_instagram`, auth, chain.enablePage);
  router.post(`${base}/:id/enable_page_instagram`, auth, chain.enablePage);
}
