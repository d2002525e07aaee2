import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { signingAlgorithmOf } from '../lib/signing-keys.js';
import { portalEmptyBody, portalWebhookCreateBody, portalWebhookUpdateBody } from '../../schemas/portal.js';
import { newEventId } from '../domain/events.js';
import { ReplayRefused, type Replayer } from '../dispatch/replay.js';
import { Conflict, NotFound, ServiceUnavailable, ValidationFailed } from '../errors/errors.js';
import { answersSecret, type AppState, type RouteContext } from '../http/context.js';
import { pathId } from '../http/params.js';
import { validator, type Validator } from '../http/validate.js';
import { presentDelivery, presentEndpointHealth } from '../presenters/admin.js';
import { presentWebhook } from '../presenters/webhook.js';
import type { CompanyRow } from '../store/resources/companies.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/resources/webhooks.js';
import { MAX_ENDPOINTS_PER_COMPANY, rotateSecret } from '../domain/webhook-endpoints.js';
import { sessionCompany } from './session.js';
import { changeWebhookEndpoint } from '../domain/operational-events.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SsrfGuard } from '../net/ssrf.js';
import { destinationOnCreate, destinationOnUpdate, storedSettings } from '../http/endpoint-destination.js';
import { withKeptCredentials } from './kept-credentials.js';

export interface PortalApiDeps {
  store: Store;
  session: Middleware<AppState>;
  body: Middleware<AppState>;
  replayer: Replayer | null;
  metrics?: Metrics;
  guard: SsrfGuard;
}

const createBody = validator(portalWebhookCreateBody);
const updateBody = validator(portalWebhookUpdateBody);
const emptyBody = validator(portalEmptyBody);

/** The body of a portal request, validated; JSON keeps its types, a form body is read as text. */
export function readBody<T>(ctx: RouteContext, validate: Validator<T>): T {
  return validate(ctx.request.body ?? {}, ctx.is('json') ? 'json' : 'text');
}

/** The session company's endpoint named by `:id`; any other id, another company's included, is 404. */
export function companyEndpoint(store: Store, company: CompanyRow, param: string | undefined): WebhookEndpointRow {
  const id = pathId(param, 'Webhook endpoint');
  const endpoint = store.webhooks.find(company.id, id);
  if (endpoint === undefined) throw new NotFound(`Webhook endpoint ${id} was not found.`);
  return endpoint;
}

/**
 * The company's endpoints in the portal: list with health, add one of any destination type (a
 * webhook's URL, a broker's settings), change its target and event filter, disable and enable,
 * rotate the secret (the previous one keeps signing for 24 hours: the overlap), and send a test
 * event to one endpoint.
 */
export function portalWebhookRoutes(
  router: Router<AppState>,
  { store, session, body, replayer, metrics, guard }: PortalApiDeps,
): void {
  const base = '/portal/api/webhooks';

  router.get(base, session, (ctx) => {
    const company = sessionCompany(store, ctx);
    const health = new Map(
      store.deliverySearch.endpointHealth(company.id).map((row) => [row.id, presentEndpointHealth(row)]),
    );
    ctx.body = {
      webhooks: store.webhooks
        .list(company.id)
        .map((row) => ({ ...presentWebhook(row), health: health.get(row.id) ?? null })),
    };
  });

  router.post(base, session, body, (ctx) => {
    const company = sessionCompany(store, ctx);
    const input = readBody(ctx, createBody);
    const target = destinationOnCreate(guard, input);
    const created = store.transaction(() => {
      if (store.webhooks.count(company.id) >= MAX_ENDPOINTS_PER_COMPANY) {
        throw ValidationFailed.field(
          '',
          `A company has at most ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints. Remove one through the API first.`,
        );
      }
      return store.webhooks.create({
        companyId: company.id,
        source: 'api',
        url: target.url,
        type: target.type,
        destination: target.destination === null ? null : storedSettings(target.destination),
        eventTypes: input.event_types ?? null,
        active: true,
      });
    });
    ctx.status = 201;
    answersSecret(ctx);
    ctx.body = { webhook: presentWebhook(created, { withSecret: true }) };
  });

  router.patch(`${base}/:id`, session, body, (ctx) => {
    const company = sessionCompany(store, ctx);
    const endpoint = companyEndpoint(store, company, ctx.params.id);
    const input = readBody(ctx, updateBody);
    const target = destinationOnUpdate(guard, endpoint, withKeptCredentials(endpoint, input));
    if (endpoint.source === 'company' && input.url !== undefined && input.url !== endpoint.url) {
      throw new Conflict(
        `Webhook endpoint ${endpoint.id} is the company's webhook_url: change it through the API (PUT /p1/companies/${company.id}).`,
      );
    }
    const changes = {
      url: target.url,
      ...(target.destination === undefined ? {} : { destination: storedSettings(target.destination) }),
      eventTypes: input.event_types,
      active: input.active,
      disabledReason: 'disabled in the company portal',
    };
    const { endpoint: changed, stateChange } = store.transaction(() =>
      changeWebhookEndpoint(store, endpoint, changes, 'portal'),
    );
    if (stateChange !== null) metrics?.endpointStateChanged(stateChange.state, stateChange.by);
    ctx.body = { webhook: presentWebhook(changed) };
  });

  router.post(`${base}/:id/rotate_secret`, session, body, (ctx) => {
    const company = sessionCompany(store, ctx);
    const endpoint = companyEndpoint(store, company, ctx.params.id);
    readBody(ctx, emptyBody);
    const rotated = store.transaction(() => rotateSecret(store, endpoint.id));
    if (rotated === undefined) throw new NotFound(`Webhook endpoint ${endpoint.id} was not found.`);
    // An ed25519 key's private half is shown at creation only: receivers need its new public half.
    const withSecret = signingAlgorithmOf(rotated.secret) !== 'ed25519';
    if (withSecret) answersSecret(ctx);
    ctx.body = { webhook: presentWebhook(rotated, { withSecret }) };
  });

  // A test event goes to this one endpoint, whatever its event filter: the company asked for it.
  router.post(`${base}/:id/test`, session, body, async (ctx) => {
    const company = sessionCompany(store, ctx);
    const endpoint = companyEndpoint(store, company, ctx.params.id);
    readBody(ctx, emptyBody);
    if (replayer === null)
      throw new ServiceUnavailable('Test events need the pipeline, which is not running in this process.');
    if (!endpoint.active)
      throw new Conflict(`Webhook endpoint ${endpoint.id} is disabled: enable it to send a test event.`);
    const id = newEventId();
    const createdAt = new Date().toISOString();
    const event = {
      id,
      company_id: company.id,
      name: 'webhook.test',
      created_at: createdAt,
      body: {
        id,
        event: 'test',
        type: 'webhook',
        created_at: createdAt,
        object: { webhook_id: endpoint.id, text: 'A test event sent from the company portal.' },
      },
    };
    const [deliveryId] = store.transaction(() => store.deliveries.createForEvent(event, [endpoint], Date.now()));
    const delivery = store.deliveries.find(deliveryId!)!;
    try {
      await replayer.sendFirst(delivery);
    } catch (error) {
      if (error instanceof ReplayRefused) throw new Conflict(error.message);
      throw error;
    }
    ctx.status = 202;
    ctx.body = { delivery: presentDelivery(delivery) };
  });
}
