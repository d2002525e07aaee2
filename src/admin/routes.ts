import { companyExportRoutes } from './company-export.js';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { adminBulkReplayBody, adminDeliveryListQuery } from '../../schemas/admin/deliveries.js';
import { ReplayRefused, type Replayer } from '../dispatch/replay.js';
import { parseQuery } from '../http/query.js';
import type { AppState } from '../http/context.js';
import { Conflict, NotFound, ServiceUnavailable, ValidationFailed } from '../errors/errors.js';
import { parseBody, type BodyLimits } from '../http/body.js';
import { toDeliveryFilter } from '../http/delivery-query.js';
import { decodeDeliveryCursor, encodeDeliveryCursor } from '../lib/paging.js';
import { validator } from '../http/validate.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import { authenticateAdmin } from './authenticate-admin.js';
import type { AuthThrottle } from '../http/auth-throttle.js';
import { endpointRoutes, requireKnownCompany } from './endpoints.js';
import { adminTokenRoutes } from './tokens.js';
import { presentAttempt, presentDelivery, presentReplayTask } from '../presenters/admin.js';

export interface AdminDeps {
  store: Store;
  adminToken: string;
  replayer: Replayer | null;
  bodyLimits: BodyLimits;
  /** The console's session (cookie and CSRF token), accepted where no Authorization header is sent. */
  consoleSession?: Middleware<AppState>;
  /** The daemon's metrics: the pipeline page reads its attempt rates and stream lag. */
  metrics?: Metrics;
  /** Counts and slows wrong admin tokens, shared with /metrics and the console login. */
  throttle?: AuthThrottle;
  now?: () => number;
}

const validateListQuery = validator(adminDeliveryListQuery);
const validateBulkReplay = validator(adminBulkReplayBody);

/**
 * The operators' API under /admin (docs/admin.md), behind GATEWAY_ADMIN_TOKEN or a console session.
 * Mounted only when that token is configured; without it every /admin path answers 404.
 */
export function adminRoutes(router: Router<AppState>, deps: AdminDeps): void {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const auth = authenticateAdmin(deps.adminToken, { consoleSession: deps.consoleSession, throttle: deps.throttle });
  const body = parseBody(deps.bodyLimits);
  const replayer = (): Replayer => {
    if (deps.replayer === null)
      throw new ServiceUnavailable('Replays need the pipeline, which is not running in this process.');
    return deps.replayer;
  };

  router.get('/admin/deliveries', auth, (ctx) => {
    const query = validateListQuery(parseQuery(ctx.querystring), 'text');
    requireKnownCompany(store, query.company_id);
    const page = store.deliverySearch.list(
      toDeliveryFilter(query),
      decodeDeliveryCursor(query.cursor),
      query.limit ?? 50,
    );
    ctx.body = {
      deliveries: page.rows.map(presentDelivery),
      next_cursor: page.hasMore ? encodeDeliveryCursor(page.rows.at(-1)!.seq) : null,
    };
  });

  router.get('/admin/deliveries/:deliveryId', auth, (ctx) => {
    const delivery = store.deliveries.find(ctx.params.deliveryId!);
    if (delivery === undefined) throw new NotFound(`There is no delivery ${ctx.params.deliveryId}.`);
    ctx.body = {
      delivery: presentDelivery(delivery),
      // What the endpoint receives: the event's body, exactly as signed.
      event: (JSON.parse(delivery.event) as { body: unknown }).body,
      attempts: store.deliveries.attempts(delivery.id).map(presentAttempt),
    };
  });

  router.post('/admin/deliveries/:deliveryId/replay', auth, async (ctx) => {
    const delivery = store.deliveries.find(ctx.params.deliveryId!);
    if (delivery === undefined) throw new NotFound(`There is no delivery ${ctx.params.deliveryId}.`);
    try {
      const job = await replayer().replayOne(delivery);
      ctx.status = 202;
      ctx.body = { delivery: presentDelivery(delivery), replay: { attempt: job.attempt, trigger: 'manual' } };
    } catch (error) {
      if (error instanceof ReplayRefused) throw new Conflict(error.message);
      throw error;
    }
  });

  router.post('/admin/replays', auth, body, (ctx) => {
    const input = validateBulkReplay(ctx.request.body ?? {}, ctx.is('json') ? 'json' : 'text');
    requireKnownCompany(store, input.company_id);
    // A replay of everything ever delivered is never what an operator means.
    if (input.status === undefined && input.company_id === undefined && input.endpoint_id === undefined) {
      throw ValidationFailed.field('', 'Name at least one of status, company_id or endpoint_id.');
    }
    const filter = toDeliveryFilter(input);
    const task = store.transaction(() => store.replayTasks.create(filter, store.deliverySearch.count(filter), now()));
    ctx.status = 202;
    ctx.set('location', `/admin/replays/${task.id}`);
    ctx.body = { task: presentReplayTask(task) };
  });

  router.get('/admin/replays/:taskId', auth, (ctx) => {
    const task = store.replayTasks.find(ctx.params.taskId!);
    if (task === undefined) throw new NotFound(`There is no replay task ${ctx.params.taskId}.`);
    ctx.body = { task: presentReplayTask(task) };
  });

  router.post('/admin/replays/:taskId/cancel', auth, (ctx) => {
    const cancelled = store.transaction(() => store.replayTasks.cancel(ctx.params.taskId!, now()));
    if (cancelled !== undefined) {
      ctx.body = { task: presentReplayTask(cancelled) };
      return;
    }
    const task = store.replayTasks.find(ctx.params.taskId!);
    if (task === undefined) throw new NotFound(`There is no replay task ${ctx.params.taskId}.`);
    throw new Conflict(
      `The replay task ${task.id} is ${task.status} already: only a queued or running task can be cancelled.`,
    );
  });

  endpointRoutes(router, { store, auth, body, metrics: deps.metrics, now });
  adminTokenRoutes(router, { store, auth, now });
  companyExportRoutes(router, store, auth);
}
