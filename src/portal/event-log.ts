import type Router from '@koa/router';
import { portalDeliveryListQuery, portalEmptyBody, portalReplayBody } from '../../schemas/portal.js';
import { ReplayRefused, type Replayer } from '../dispatch/replay.js';
import { Conflict, NotFound, ServiceUnavailable } from '../errors/errors.js';
import type { AppState } from '../http/context.js';
import { toDeliveryFilter } from '../http/delivery-query.js';
import { decodeDeliveryCursor, encodeDeliveryCursor } from '../lib/paging.js';
import { validator } from '../http/validate.js';
import { presentAttempt, presentDelivery, presentReplayTask } from '../presenters/admin.js';
import type { CompanyRow } from '../store/resources/companies.js';
import type { DeliveryRow } from '../store/deliveries/delivery-rows.js';
import type { Store } from '../store/store.js';
import { sessionCompany } from './session.js';
import { companyEndpoint, readBody, type PortalApiDeps } from './webhooks.js';

const validateList = validator(portalDeliveryListQuery);
const validateReplay = validator(portalReplayBody);
const emptyBody = validator(portalEmptyBody);

/**
 * The company's event log in the portal: its deliveries (one per event and endpoint) newest first,
 * each with its attempts and body; replaying one, and replaying all its failed ones as a task.
 * Every query is filtered by the session's company; an id of another company answers 404.
 */
export function portalEventLogRoutes(
  router: Router<AppState>,
  { store, session, body, replayer }: PortalApiDeps,
): void {
  const needReplayer = (): Replayer => {
    if (replayer === null)
      throw new ServiceUnavailable('Replays need the pipeline, which is not running in this process.');
    return replayer;
  };

  router.get('/portal/api/deliveries', session, (ctx) => {
    const company = sessionCompany(store, ctx);
    const query = validateList({ ...ctx.query }, 'text');
    const filter = { ...toDeliveryFilter(query), company_id: company.id };
    const page = store.deliverySearch.list(filter, decodeDeliveryCursor(query.cursor), query.limit ?? 25);
    ctx.body = {
      deliveries: page.rows.map(presentDelivery),
      next_cursor: page.hasMore ? encodeDeliveryCursor(page.rows.at(-1)!.seq) : null,
    };
  });

  router.get('/portal/api/deliveries/:deliveryId', session, (ctx) => {
    const delivery = companyDelivery(store, sessionCompany(store, ctx), ctx.params.deliveryId);
    ctx.body = {
      delivery: presentDelivery(delivery),
      event: (JSON.parse(delivery.event) as { body: unknown }).body,
      attempts: store.deliveries.attempts(delivery.id).map(presentAttempt),
    };
  });

  router.post('/portal/api/deliveries/:deliveryId/replay', session, body, async (ctx) => {
    const delivery = companyDelivery(store, sessionCompany(store, ctx), ctx.params.deliveryId);
    readBody(ctx, emptyBody);
    try {
      const job = await needReplayer().replayOne(delivery);
      ctx.status = 202;
      ctx.body = { delivery: presentDelivery(delivery), replay: { attempt: job.attempt, trigger: 'manual' } };
    } catch (error) {
      if (error instanceof ReplayRefused) throw new Conflict(error.message);
      throw error;
    }
  });

  // The company's failed deliveries (of one of its endpoints, when named), since a time if given.
  router.post('/portal/api/replays', session, body, (ctx) => {
    const company = sessionCompany(store, ctx);
    const input = readBody(ctx, validateReplay);
    if (input.endpoint_id !== undefined) companyEndpoint(store, company, String(input.endpoint_id));
    needReplayer();
    const filter = {
      ...toDeliveryFilter({ endpoint_id: input.endpoint_id, since: input.since }),
      company_id: company.id,
      status: 'failed' as const,
    };
    const task = store.transaction(() =>
      store.replayTasks.create(filter, store.deliverySearch.count(filter), Date.now()),
    );
    ctx.status = 202;
    ctx.body = { task: presentReplayTask(task) };
  });

  router.get('/portal/api/replays/:taskId', session, (ctx) => {
    const company = sessionCompany(store, ctx);
    const task = store.replayTasks.find(ctx.params.taskId!);
    // A task belongs to the company its filter is bound to; the admin's tasks across companies are none of its.
    if (task === undefined || (JSON.parse(task.filter) as { company_id?: number }).company_id !== company.id) {
      throw new NotFound(`There is no replay task ${ctx.params.taskId}.`);
    }
    ctx.body = { task: presentReplayTask(task) };
  });
}

function companyDelivery(store: Store, company: CompanyRow, id: string | undefined): DeliveryRow {
  const delivery = store.deliveries.find(id ?? '');
  if (delivery === undefined || delivery.company_id !== company.id) throw new NotFound(`There is no delivery ${id}.`);
  return delivery;
}
