import type { Layer, Router } from '@koa/router';
import type { Middleware } from 'koa';
import { botUpdate } from '../../schemas/callbacks/bot.js';
import { cloudCallback, cloudHandshakeQuery } from '../../schemas/callbacks/cloud.js';
import { connectorEvents, connectorEventType } from '../../schemas/callbacks/connector.js';
import { pathId } from '../http/params.js';
import { callbackFamily, presentedSecret, type CallbackFamily } from '../domain/callback-secrets.js';
import { applyCallbackGrouped } from '../domain/incoming.js';
import { sameSecret, secretDigest } from '../domain/tokens.js';
import type { AppState, RouteContext } from '../http/context.js';
import { BadRequest, Forbidden, NotFound, Unauthorized, ValidationFailed } from '../errors/errors.js';
import { mayNestDeeperThan, nestedDeeperThan, validator, type Validator } from '../http/validate.js';
import type { ChannelCallbackRow } from '../store/resources/callbacks.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { Presenters } from '../presenters/presenters.js';
import type { Store } from '../store/store.js';
import type { Metrics } from '../metrics/metrics.js';
import { normalizeBotUpdate, type BotUpdate } from '../ingest/bot.js';
import { normalizeCloudCallback, type CloudCallback } from '../ingest/cloud.js';
import { normalizeConnectorEvent, type ConnectorEvent } from '../ingest/connector.js';
import type { IngestBatch } from '../domain/provider-facts.js';
import { readRawBody, utf8Body } from '../http/raw-body.js';
import {
  BOT_SECRET_HEADER,
  CLOUD_SIGNATURE_HEADER,
  verifyBotSecretDigest,
  verifyCloudSignature,
  verifyStandardWebhook,
  type VerifyResult,
} from '../ingest/verify.js';

export interface CallbackDeps {
  store: Store;
  presenters: Presenters;
  /** GATEWAY_CHAT_A_BUSINESS_APP_SECRET, or null: each cloud-style channel uses its own secret. */
  cloudAppSecret: string | null;
  /** Largest accepted callback body (GATEWAY_BODY_LIMIT_BYTES, 1 MiB by default). */
  bodyLimitBytes: number;
  /** GATEWAY_BODY_TIMEOUT: a body slower than this is a 408. */
  bodyTimeoutMs?: number;
  /** Deepest nesting of a callback's JSON (GATEWAY_JSON_MAX_DEPTH). */
  jsonMaxDepth: number;
  metrics?: Metrics;
}

const validateCloud = validator<typeof cloudCallback, CloudCallback>(cloudCallback);
const validateBot = validator<typeof botUpdate, BotUpdate>(botUpdate);
const validateConnectorType = validator(connectorEventType);
const validateConnector = Object.fromEntries(
  Object.entries(connectorEvents).map(([type, schema]) => [type, validator(schema)]),
) as Record<string, Validator<ConnectorEvent>>;
const validateHandshake = validator(cloudHandshakeQuery);

/**
 * Provider callbacks (docs/design.md section 5). Not behind the API token: every family carries its own
 * verification, checked over the raw bytes before anything is parsed. Answers, in this order:
 * 404 unknown, deleted or other provider's channel; 413 body over the limit; 400 body not valid
 * UTF-8; 401 bad or missing signature; 400 malformed JSON; 422 schema violation; 200 once the
 * transaction committed (a group commit: src/store/engine/group-commit.ts). Answers the middleware that
 * runs the POST route ahead of the router (callbackShortcut); the route stays on the router too.
 */
export function callbackRoutes(router: Router<AppState>, deps: CallbackDeps): Middleware<AppState> {
  const { store } = deps;

  router.get('/callbacks/chat_a_business/:channelId', (ctx) => {
    const { settings } = findCallbackChannel(store, 'chat_a_business', ctx.params.channelId);
    // The schema checks the shape (hub.mode is subscribe, one text each); then only the token is compared.
    const query = validateHandshake({ ...ctx.query }, 'text');
    if (!sameSecret(query['hub.verify_token'], settings.verify_token))
      throw new Forbidden("hub.verify_token is not the channel's verify token.");
    ctx.type = 'text/plain';
    ctx.body = query['hub.challenge'];
  });

  const accept = async (ctx: RouteContext): Promise<void> => {
    const provider = ctx.params.provider!;
    try {
      const { channel, settings } = findCallbackChannel(store, provider, ctx.params.channelId);
      const family = callbackFamily(channel.provider);
      const raw = await readRawBody(ctx.req, deps.bodyLimitBytes, deps.bodyTimeoutMs);
      const text = utf8Body(raw);
      const refused = verify(family, ctx, raw, text, settings, deps.cloudAppSecret);
      if (refused !== null) throw new Unauthorized(refused);
      const batch = normalize(family, parseJson(text, deps.jsonMaxDepth), ctx, channel);
      // Committed (grouped with the callbacks of the same turn) before the 200 is sent.
      const outcome = await store.groupedUrgent(() =>
        applyCallbackGrouped(store, { id: channel.id, api: settings.api }, batch, deps.presenters),
      );
      // Ids and counts only, on the request line: it needs no redaction pass.
      ctx.state.lineFields = {
        channel: channel.id,
        family,
        duplicate: outcome.duplicate,
        messages: outcome.messages,
        events: outcome.events,
      };
      // What `ctx.body = { status: 'ok' }` sends (same headers), without the media-type lookup and the stringify.
      ctx.set('Content-Type', JSON_TYPE);
      ctx.body = OK_BODY;
      deps.metrics?.callbackAccepted(provider, outcome.duplicate);
    } catch (error) {
      deps.metrics?.callbackRejected(provider, error);
      throw error;
    }
  };
  router.post(CALLBACK_ROUTE, '/callbacks/:provider/:channelId', accept);
  const layer = router.route(CALLBACK_ROUTE);
  if (layer === false) throw new Error('the callback route is not registered');
  return callbackShortcut(layer, accept);
}

const CALLBACK_ROUTE = 'provider callback';
const JSON_TYPE = 'application/json; charset=utf-8';
const OK_BODY = JSON.stringify({ status: 'ok' });

/**
 * Provider callbacks ahead of the router (mounted before router.routes(), src/roles/http-app.ts): the
 * router tests every one of its layers (all the API) against each request's path, then composes
 * the matched layers into a new middleware chain per request. A POST that the callback route's own
 * layer matches (same path-to-regexp, case and trailing-slash rules, decoded params) runs the
 * handler at once, with the params and the matched route the router would have set; anything else
 * goes on to the router. No other layer matches a /callbacks/:provider/:channelId POST (a test
 * checks it): the router would run this one handler alone too, and as the handler never calls
 * next, allowedMethods never ran after it.
 */
function callbackShortcut(layer: Layer<AppState>, accept: (ctx: RouteContext) => Promise<void>): Middleware<AppState> {
  return (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const path = ctx.path;
    if (!layer.match(path)) return next();
    const routed = ctx as unknown as RouteContext & { _matchedRoute?: string | RegExp; _matchedRouteName?: string };
    routed.params = layer.params(path, layer.captures(path));
    routed.request.params = routed.params;
    // The metrics label (src/metrics/metrics.ts) reads the route the router would have recorded.
    routed._matchedRoute = layer.path;
    routed._matchedRouteName = CALLBACK_ROUTE;
    return accept(routed);
  };
}

/** A live channel of the provider named in the path, with its callback settings; 404 for anything else. */
function findCallbackChannel(
  store: Store,
  provider: string,
  idText: string | undefined,
): { channel: ChannelRow; settings: ChannelCallbackRow } {
  // Cached reads (invalidated by every write to the channel): a deleted or disabled channel is seen at once.
  const channel = store.channels.findLiveCached(pathId(idText, `${provider} channel`));
  if (channel === undefined || channel.provider !== provider)
    throw new NotFound(`${provider} channel ${idText ?? ''} was not found.`);
  // Every channel got its settings in createAuth (older ones from migration 004).
  return { channel, settings: store.callbacks.getCached(channel.id) };
}

function verify(
  family: CallbackFamily,
  ctx: RouteContext,
  raw: Buffer,
  text: string,
  settings: ChannelCallbackRow,
  cloudAppSecret: string | null,
): VerifyResult {
  switch (family) {
    case 'cloud':
      return verifyCloudSignature(
        raw,
        ctx.get(CLOUD_SIGNATURE_HEADER),
        cloudAppSecret ?? presentedSecret('cloud', settings.signing_secret),
      );
    case 'bot':
      return verifyBotSecretDigest(ctx.get(BOT_SECRET_HEADER), botSecretDigest(settings));
    case 'connector':
      return verifyStandardWebhook(text, webhookHeaders(ctx), presentedSecret('connector', settings.signing_secret));
  }
}

/**
 * The digest a bot-style secret token header is compared with, kept per settings row: the rows of
 * the settings cache (CallbackStore.getCached) are the same objects from one callback to the next.
 */
const botDigests = new WeakMap<ChannelCallbackRow, Buffer>();
function botSecretDigest(settings: ChannelCallbackRow): Buffer {
  let digest = botDigests.get(settings);
  if (digest === undefined) {
    digest = secretDigest(presentedSecret('bot', settings.signing_secret));
    botDigests.set(settings, digest);
  }
  return digest;
}

function webhookHeaders(ctx: RouteContext): Record<string, string> {
  return {
    'webhook-id': ctx.get('webhook-id'),
    'webhook-timestamp': ctx.get('webhook-timestamp'),
    'webhook-signature': ctx.get('webhook-signature'),
  };
}

/** The callback's JSON, refused (400) when it is not JSON or nests deeper than anything walks safely. */
function parseJson(text: string, maxDepth: number): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('The callback body is not valid JSON.');
  }
  if (mayNestDeeperThan(text, maxDepth) && nestedDeeperThan(body, maxDepth))
    throw new BadRequest(`The callback body is nested more than ${maxDepth} levels deep.`);
  return body;
}

/** Validates against the family's schema (422 with one entry per field) and normalizes. */
function normalize(family: CallbackFamily, body: unknown, ctx: RouteContext, channel: ChannelRow): IngestBatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ValidationFailed.field('', 'The body must be a JSON object');
  switch (family) {
    case 'cloud': {
      const phoneNumberId = channel.settings.vendor_channel_id;
      return normalizeCloudCallback(
        validateCloud(body, 'json'),
        typeof phoneNumberId === 'string' ? phoneNumberId : undefined,
      );
    }
    case 'bot':
      return normalizeBotUpdate(validateBot(body, 'json'));
    case 'connector': {
      const { type } = validateConnectorType(body, 'json');
      return normalizeConnectorEvent(validateConnector[type]!(body, 'json'), ctx.get('webhook-id'));
    }
  }
}
