import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { signingAlgorithmOf, type SigningAlgorithm } from '../../lib/signing-keys.js';
import { V1_WEBHOOK_EVENT_TYPES } from '../../../schemas/objects/webhook.js';
import {
  webhookActionBody,
  webhookCreateBody,
  webhookListQuery,
  webhookUpdateBody,
} from '../../../schemas/v2/webhooks.js';
import { describeFailure, type EndpointTester } from '../../dispatch/endpoint-test.js';
import { answersSecret, type AppState, type RouteContext } from '../../http/context.js';
import { Conflict, NotFound, ValidationFailed } from '../../errors/errors.js';
import { readInput } from '../../http/input.js';
import { validator } from '../../http/validate.js';
import type { CompanyRow } from '../../store/resources/companies.js';
import type { Store } from '../../store/store.js';
import type { WebhookEndpointRow } from '../../store/resources/webhooks.js';
import type { EndpointFilter } from '../../../schemas/objects/endpoint-filter.js';
import {
  MAX_ENDPOINTS_PER_COMPANY,
  retryScheduleProblems,
  rotateSecret,
  type RetryScheduleBounds,
} from '../../domain/webhook-endpoints.js';
import { pathId } from '../../http/params.js';
import { findCompany } from '../lookup.js';
import { matchPathCompany } from './auths.js';
import { presentWebhook } from '../../presenters/webhook.js';
import { toMeta } from '../../lib/paging.js';
import { changeWebhookEndpoint } from '../../domain/operational-events.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { SsrfGuard } from '../../net/ssrf.js';
import { requireReachableUrl } from '../../http/outbound-url.js';
import {
  destinationAfter,
  destinationOnCreate,
  destinationOnUpdate,
  storedSettings,
} from '../../http/endpoint-destination.js';
import type { BrokerDestination } from '../../../schemas/objects/destination.js';

const createBody = validator(webhookCreateBody);
const updateBody = validator(webhookUpdateBody);
const actionBody = validator(webhookActionBody);
const listQuery = validator(webhookListQuery);

const LIMIT_TEXT = `a company has at most ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints, its v1 webhook_url included`;

/**
 * Company webhook endpoints (docs/design.md sections 7 and 9, the hosted service's company-webhooks
 * pages): up to five per company, the company's v1 webhook_url being one of them (source `company`).
 * Each has its own `whsec_` secret, shown only when it is created or rotated (or, with
 * `signing_algorithm: ed25519`, a `whsk_` key shown at creation only and its `whpk_` public key
 * always). An endpoint becomes active through an update only once it answered the signed test POST
 * (src/dispatch/endpoint-test.ts) with a 2xx; `POST .../test` sends that same POST on demand.
 */
export function webhookRoutes(
  router: Router<AppState>,
  store: Store,
  auth: Middleware<AppState>,
  tester: EndpointTester,
  guard: SsrfGuard,
  retryBounds: RetryScheduleBounds,
  metrics?: Metrics,
): void {
  const base = '/api/p2/companies/:companyId/webhooks';

  router.get(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, listQuery);
    matchPathCompany(company, input.company_id);
    const all = store.webhooks.list(company.id);
    const offset = (input.page - 1) * input.per_page;
    ctx.body = {
      webhooks: all.slice(offset, offset + input.per_page).map((row) => presentWebhook(row)),
      meta: toMeta(input.page, input.per_page, all.length),
    };
  });

  router.post(base, auth, (ctx) => {
    const company = findCompany(store, ctx, 'companyId');
    const input = readInput(ctx, createBody);
    matchPathCompany(company, input.company_id);
    const target = destinationOnCreate(guard, input);
    requireRetryBounds(input.retry_schedule, retryBounds);
    const created = store.transaction(() => {
      if (store.webhooks.count(company.id) >= MAX_ENDPOINTS_PER_COMPANY) {
        throw ValidationFailed.field(
          '',
          `Company ${company.id} cannot have another webhook endpoint: ${LIMIT_TEXT}. Delete one first.`,
        );
      }
      return store.webhooks.create({
        companyId: company.id,
        source: 'api',
        url: target.url,
        type: target.type,
        destination: target.destination === null ? null : storedSettings(target.destination),
        eventTypes: input.event_types ?? null,
        active: input.active,
        ordering: input.ordering,
        rateLimit: input.rate_limit ?? null,
        filter: input.filter as EndpointFilter | null | undefined,
        retrySchedule: input.retry_schedule ?? null,
        signingAlgorithm: input.signing_algorithm,
      });
    });
    ctx.status = 201;
    answersSecret(ctx);
    ctx.body = { webhook: presentWebhook(created, { withSecret: true }) };
  });

  router.get(`${base}/:id`, auth, (ctx) => {
    const { company, endpoint } = findEndpoint(store, ctx);
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    ctx.body = { webhook: presentWebhook(endpoint) };
  });

  for (const method of ['put', 'patch'] as const) {
    router[method](`${base}/:id`, auth, async (ctx) => {
      const { company, endpoint } = findEndpoint(store, ctx);
      const input = readInput(ctx, updateBody);
      matchPathCompany(company, input.company_id);
      const target = destinationOnUpdate(guard, endpoint, input);
      requireRetryBounds(input.retry_schedule, retryBounds);
      requireSameAlgorithm(endpoint.secret, input.signing_algorithm);
      if (endpoint.source === 'company' && input.url !== undefined && input.url !== endpoint.url) {
        throw new Conflict(
          `Webhook endpoint ${endpoint.id} is the company's webhook_url: change its url with PUT /p1/companies/${company.id}.`,
        );
      }
      const v2Types =
        endpoint.source === 'company'
          ? (input.event_types ?? []).filter((name) => !(V1_WEBHOOK_EVENT_TYPES as readonly string[]).includes(name))
          : [];
      if (v2Types.length > 0) {
        throw ValidationFailed.field(
          'event_types',
          `the company's webhook_url receives v1 payloads only (${V1_WEBHOOK_EVENT_TYPES.join(', ')}), not ${v2Types.join(', ')}: create an endpoint for v2 events`,
        );
      }
      await checkActivation(tester, endpoint, { ...target, active: input.active });
      // A change of `active` writes webhook.disabled or webhook.enabled in the same transaction.
      const { endpoint: updated, stateChange } = store.transaction(() =>
        changeWebhookEndpoint(
          store,
          endpoint,
          {
            url: target.url,
            ...(target.destination === undefined ? {} : { destination: storedSettings(target.destination) }),
            eventTypes: input.event_types,
            active: input.active,
            ordering: input.ordering,
            rateLimit: input.rate_limit,
            filter: input.filter as EndpointFilter | null | undefined,
            retrySchedule: input.retry_schedule,
          },
          'api',
        ),
      );
      if (stateChange !== null) metrics?.endpointStateChanged(stateChange.state, stateChange.by);
      ctx.body = { webhook: presentWebhook(updated) };
    });
  }

  router.delete(`${base}/:id`, auth, (ctx) => {
    const { company, endpoint } = findEndpoint(store, ctx);
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    if (endpoint.source === 'company') {
      throw new Conflict(
        `Webhook endpoint ${endpoint.id} is the company's webhook_url: clear it with PUT /p1/companies/${company.id} (webhook_url null).`,
      );
    }
    if (!store.transaction(() => store.webhooks.delete(endpoint.id)))
      throw new NotFound(`Webhook endpoint ${endpoint.id} was not found.`);
    ctx.status = 204; // as the pages document: no body
  });

  // The test POST on demand, active or not and whatever its event filter; 200 with the outcome.
  router.post(`${base}/:id/test`, auth, async (ctx) => {
    const { company, endpoint } = findEndpoint(store, ctx);
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    // An address refused by the guard is named here, not reported as a failed test POST.
    if (endpoint.type === 'webhook') requireReachableUrl(guard, endpoint.url, 'url');
    ctx.body = { test: await tester.send(endpoint) };
  });

  router.post(`${base}/:id/rotate_secret`, auth, (ctx) => {
    const { company, endpoint } = findEndpoint(store, ctx);
    matchPathCompany(company, readInput(ctx, actionBody).company_id);
    const rotated = store.transaction(() => rotateSecret(store, endpoint.id));
    if (rotated === undefined) throw new NotFound(`Webhook endpoint ${endpoint.id} was not found.`);
    // An ed25519 key's private half is shown at creation only: receivers need its new public half.
    const withSecret = signingAlgorithmOf(rotated.secret) !== 'ed25519';
    if (withSecret) answersSecret(ctx);
    ctx.body = { webhook: presentWebhook(rotated, { withSecret }) };
  });
}

/**
 * The signing algorithm is chosen at creation: receivers hold its key. An update that names
 * another is a 422 rather than a change silently not made.
 */
function requireSameAlgorithm(secret: string, requested: SigningAlgorithm | undefined): void {
  const current = signingAlgorithmOf(secret);
  if (requested === undefined || requested === current) return;
  throw ValidationFailed.field(
    'signing_algorithm',
    `is ${current}, chosen when the endpoint was created: create a new endpoint to sign with ${requested}`,
  );
}

/** A retry schedule beyond what the operator allows is a 422 naming the step (or the whole list). */
function requireRetryBounds(schedule: readonly number[] | null | undefined, bounds: RetryScheduleBounds): void {
  if (schedule === undefined || schedule === null) return;
  const problems = retryScheduleProblems(schedule, bounds);
  if (problems.length > 0) throw new ValidationFailed(problems);
}

/**
 * An update that activates an endpoint, or moves an active one to another url (a broker endpoint:
 * other settings), first sends the test POST (the test message) to where it would send; anything
 * but a 2xx (a broker's confirm) refuses the update (422), changing nothing.
 */
async function checkActivation(
  tester: EndpointTester,
  endpoint: WebhookEndpointRow,
  input: { url?: string; destination?: BrokerDestination; active?: boolean },
): Promise<void> {
  const url = input.url ?? endpoint.url;
  const activating = input.active === true && endpoint.active !== 1;
  const moving = (url !== endpoint.url || input.destination !== undefined) && (input.active ?? endpoint.active === 1);
  if (!activating && !moving) return;
  const destination = destinationAfter(endpoint, input);
  const outcome = await tester.send(endpoint, url, destination);
  if (outcome.success) return;
  if (destination !== undefined) {
    throw ValidationFailed.field(
      moving ? destination.type : 'active',
      `The test message to ${url} ${describeFailure(outcome)}; the broker must confirm it before the endpoint is active. Nothing was changed.`,
    );
  }
  throw ValidationFailed.field(
    moving ? 'url' : 'active',
    `The test POST to ${url} ${describeFailure(outcome)}; the endpoint must answer it with a 2xx status before it is active. Nothing was changed.`,
  );
}

/** The endpoint named by `:id` of a company of the account (`:companyId`), else 404. */
function findEndpoint(store: Store, ctx: RouteContext): { company: CompanyRow; endpoint: WebhookEndpointRow } {
  const company = findCompany(store, ctx, 'companyId');
  const id = pathId(ctx.params.id, 'Webhook endpoint');
  const endpoint = store.webhooks.find(company.id, id);
  if (endpoint === undefined) throw new NotFound(`Webhook endpoint ${id} was not found.`);
  return { company, endpoint };
}
