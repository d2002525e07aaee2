import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError, BadRequest, Conflict, ValidationFailed } from '../errors/errors.js';
import type { Store } from '../store/store.js';
import { IDEMPOTENCY_RETENTION_MS } from '../workers/idempotency-janitor.js';
import { TOKEN_FIELD } from './authenticate.js';
import { discardRest } from './body.js';
import { accountOf, type AppContext, type AppState } from './context.js';
import { parseQuery } from './query.js';
import { errorEntries, httpStatusOf } from './render-errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer given again for a repeated key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Visible ASCII, as the IETF draft and the common servers take them. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** Answers a retry could change: never stored, the repeat runs again. */
const TRANSIENT_STATUSES = new Set([408, 429]);

interface Running {
  fingerprint: string;
  done: Promise<void>;
}

/**
 * Idempotent writes: a POST with an `Idempotency-Key` header runs once per account and key. A repeat
 * within 24 hours with the same request (method, path, query and body, the token left out) answers
 * the first answer again, status and body, with `Idempotent-Replayed: true`, and its handler does
 * not run; the same key with another request is a 422 on the header. A repeat that arrives while
 * the first is still running waits for it, so concurrent repeats run the handler once. Answers of
 * 500 and above, 408 and 429 are not kept: the key can be used again. Runs after authentication,
 * so a key never reaches another account's answer. A multipart upload's body is streamed by its
 * handler after this runs, so its request is compared by method, path and query only (a client's
 * multipart boundary differs on each try anyway).
 */
export function idempotency(store: Store): Middleware<AppState> {
  const running = new Map<string, Running>();

  return async (ctx, next) => {
    if (ctx.method !== 'POST') return void (await next());
    const key = ctx.get(IDEMPOTENCY_HEADER);
    if (key === '') return void (await next());
    if (!KEY_SHAPE.test(key))
      throw new BadRequest('The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
    const accountId = accountOf(ctx).id;
    const scope = `${accountId}\n${key}`;
    const fingerprint = fingerprintOf(ctx);

    for (;;) {
      const earlier = running.get(scope);
      if (earlier !== undefined) {
        if (earlier.fingerprint !== fingerprint) throw reused(key);
        await earlier.done;
        continue;
      }
      const stored = store.idempotency.find(accountId, key, Date.now() - IDEMPOTENCY_RETENTION_MS);
      if (stored === undefined) break;
      if (stored.fingerprint !== fingerprint) throw reused(key);
      if (stored.withheld === 1) throw withheld(key, stored.status);
      answerAgain(ctx, stored.status, stored.body);
      return;
    }

    let finish = (): void => {};
    running.set(scope, { fingerprint, done: new Promise<void>((resolve) => (finish = resolve)) });
    const keep = (status: number, body: unknown) => {
      if (status >= 500 || TRANSIENT_STATUSES.has(status)) return;
      // An answer carrying a secret is never stored: only that it was given (docs/decisions.md).
      if (ctx.state.secretAnswer === true && status < 400) {
        store.transaction(() =>
          store.idempotency.save({ accountId, key, fingerprint, status, body: null, withheld: true }),
        );
        return;
      }
      const text = body === undefined || body === null ? null : JSON.stringify(body);
      store.transaction(() => store.idempotency.save({ accountId, key, fingerprint, status, body: text }));
    };
    try {
      await next();
      if (isJsonAnswer(ctx.body)) keep(ctx.status, ctx.body);
    } catch (error) {
      if (error instanceof AppError) keep(httpStatusOf(error), { errors: errorEntries(error) });
      throw error;
    } finally {
      running.delete(scope);
      finish();
    }
  };
}

function reused(key: string): ValidationFailed {
  return ValidationFailed.field(
    '',
    `The Idempotency-Key "${key}" was used with another request within the last 24 hours: use a new key for a new request.`,
  );
}

/**
 * The repeat of a request whose answer carried a secret: the secret was not kept, so the answer
 * cannot be given again. 409, saying what the first request did and where to go from there.
 */
function withheld(key: string, status: number): Conflict {
  return new Conflict(
    `The request with the Idempotency-Key "${key}" was answered already (HTTP ${status}), and that answer carried a secret, which the gateway does not keep: it cannot be answered again. ` +
      'Read the resource it made (a webhook endpoint is listed without its secret; rotate_secret gives it a new one), or ask again with a new key (a new portal link).',
  );
}

function answerAgain(ctx: AppContext, status: number, body: string | null): void {
  // A multipart body nobody is going to read: drop it, so the client gets to read the answer.
  if (!ctx.req.complete && ctx.request.is('multipart/form-data')) {
    discardRest(ctx.req);
    ctx.set('Connection', 'close');
  }
  ctx.set(REPLAYED_HEADER, 'true');
  ctx.status = status;
  if (body !== null) ctx.body = JSON.parse(body) as unknown;
}

function isJsonAnswer(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  return typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}

/** SHA-256 over the method, the path, the query and the body, each with its keys sorted and without the token. */
function fingerprintOf(ctx: AppContext): string {
  const query = parseQuery(ctx.querystring);
  delete query[TOKEN_FIELD];
  const request = [ctx.method, ctx.path, stableJson(query), stableJson(ctx.request.body ?? {})].join('\n');
  return createHash('sha256').update(request).digest('hex');
}

/** JSON with object keys in sorted order: the same request sent with its fields in another order is the same request. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
