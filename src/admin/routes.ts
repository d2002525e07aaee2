import type Router from '@koa/router';
import { adminBulkReplayBody, adminDeliveryListQuery } from '../../schemas/admin/deliveries.js';
import { ReplayRefused, type Replayer } from '../dispatch/replay.js';
import { pathId } from '../http/params.js';
import type { AppState } from '../http/context.js';
import { Conflict, NotFound, ServiceUnavailable, ValidationFailed } from '../errors/errors.js';
import { parseBody } from '../http/body.js';
import { validator } from '../http/validate.js';
import type { DeliveryFilter } from '../store/deliveries.js';
import type { Store } from '../store/store.js';
import { authenticateAdmin } from './authenticate-admin.js';
import { presentAttempt, presentDelivery, presentEndpointHealth, presentReplayTask } from '../presenters/admin.js';

export interface AdminDeps {
  store: Store;
  adminToken: string;
  replayer: Replayer | null;
  bodyLimitBytes: number;
  now?: () => number;
}

const validateListQuery = validator(adminDeliveryListQuery);
const validateBulkReplay = validator(adminBulkReplayBody);

/**
 * The operators' API under /admin (docs/design.md section 7), behind GATEWAY_ADMIN_TOKEN. Mounted only
 * when that token is configured; without it every /admin path answers 404.
 */
export function adminRoutes(router: Router<AppState>, deps: AdminDeps): void {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const auth = authenticateAdmin(deps.adminToken);
  const body = parseBody(deps.bodyLimitBytes);
  const replayer = (): Replayer => {
    if (deps.replayer === null) throw new ServiceUnavailable('Replays need the pipeline, which is not running in this process.');
    return deps.replayer;
  };

  router.get('/admin/deliveries', auth, (ctx) => {
    const query = validateListQuery({ ...ctx.query }, 'text');
    const page = store.deliveries.list(toFilter(query), decodeCursor(query.cursor), query.limit ?? 50);
    ctx.body = {
      deliveries: page.rows.map(presentDelivery),
      next_cursor: page.hasMore ? encodeCursor(page.rows.at(-1)!.seq) : null,
    };
  });

  router.get('/admin/deliveries/:deliveryId', auth, (ctx) => {
    const delivery = store.deliveries.find(ctx.params.deliveryId!);
    if (delivery === undefined) throw new NotFound(`There is no delivery ${ctx.params.deliveryId}.`);
    ctx.body = { delivery: presentDelivery(delivery), attempts: store.deliveries.attempts(delivery.id).map(presentAttempt) };
  });

  router.post('/admin/deliveries/:deliveryId/replay', auth, async (ctx) => {
    const delivery = store.deliveries.find(ctx.params.deliveryId!);
    if (delivery === undefined) throw new NotFound(`There is no delivery ${ctx.params.deliveryId}.`);
    try {
      const job = replayer().job(delivery);
      await replayer().publish([{ job, origin: delivery.traceparent }]);
      ctx.status = 202;
      ctx.body = { delivery: presentDelivery(delivery), replay: { attempt: job.attempt, trigger: 'manual' } };
    } catch (error) {
      if (error instanceof ReplayRefused) throw new Conflict(error.message);
      throw error;
    }
  });

  router.post('/admin/replays', auth, body, (ctx) => {
    const input = validateBulkReplay(ctx.request.body ?? {}, ctx.is('json') ? 'json' : 'text');
    // A replay of everything ever delivered is never what an operator means.
    if (input.status === undefined && input.company_id === undefined && input.endpoint_id === undefined) {
      throw ValidationFailed.field('', 'Name at least one of status, company_id or endpoint_id.');
    }
    const filter = toFilter(input);
    const task = store.transaction(() => store.replayTasks.create(filter, store.deliveries.count(filter), now()));
    ctx.status = 202;
    ctx.set('location', `/admin/replays/${task.id}`);
    ctx.body = { task: presentReplayTask(task) };
  });

  router.get('/admin/replays/:taskId', auth, (ctx) => {
    const task = store.replayTasks.find(ctx.params.taskId!);
    if (task === undefined) throw new NotFound(`There is no replay task ${ctx.params.taskId}.`);
    ctx.body = { task: presentReplayTask(task) };
  });

  router.get('/admin/companies/:companyId/endpoints', auth, (ctx) => {
    const companyId = pathId(ctx.params.companyId, 'company');
    ctx.body = { endpoints: store.deliveries.endpointHealth(companyId).map(presentEndpointHealth) };
  });

  router.get('/admin/pipeline', auth, (ctx) => {
    const lag = store.outbox.lag();
    ctx.body = {
      outbox: {
        pending: lag.pending,
        oldest_created_at: lag.oldestCreatedAt === null ? null : new Date(lag.oldestCreatedAt).toISOString(),
        lag_ms: lag.oldestCreatedAt === null ? 0 : Math.max(0, now() - lag.oldestCreatedAt),
      },
    };
  });
}

interface FilterInput {
  company_id?: number;
  endpoint_id?: number;
  status?: 'pending' | 'delivered' | 'failed';
  event_type?: string;
  since?: string;
  until?: string;
}

function toFilter(input: FilterInput): DeliveryFilter {
  const since = input.since === undefined ? undefined : Date.parse(input.since);
  const until = input.until === undefined ? undefined : Date.parse(input.until);
  if (since !== undefined && until !== undefined && since > until) throw ValidationFailed.field('since', 'since must not be after until');
  return { company_id: input.company_id, endpoint_id: input.endpoint_id, status: input.status, event_type: input.event_type, since, until };
}

/** Keyset cursor: the seq of the last delivery of the page, opaque to clients. */
function encodeCursor(seq: number): string {
  return Buffer.from(`d1:${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const match = /^d1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw ValidationFailed.field('cursor', 'cursor is not a next_cursor of this list');
  return Number(match[1]);
}
