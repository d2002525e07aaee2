import Router from '@koa/router';
import Koa from 'koa';
import { channelRoutes } from '../api/v1/channels.js';
import { companyRoutes } from '../api/v1/companies.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { authenticate } from './authenticate.js';
import { parseBody } from './body.js';
import type { AppState } from './context.js';
import { renderErrors } from './render-errors.js';
import { requestLog } from './request-log.js';

export interface AppDeps {
  store: Store;
  logger: Logger;
  config: Config;
}

/** Builds the HTTP application: request log → error renderer → routes (each an explicit chain). */
export function createApp({ store, logger, config }: AppDeps): { app: Koa<AppState>; router: Router<AppState> } {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errors are rendered and logged by our own middleware
  const router = new Router<AppState>();
  const body = parseBody(config.bodyLimitBytes);
  const auth = authenticate(store.accounts, body);

  router.get('/healthz', (ctx) => {
    const health = store.health();
    ctx.status = health.status === 'ok' ? 200 : 503;
    ctx.body = { status: health.status, store: health };
  });

  companyRoutes(router, store, auth);
  channelRoutes(router, store, auth);

  app.use(requestLog(logger));
  app.use(renderErrors());
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return { app, router };
}
