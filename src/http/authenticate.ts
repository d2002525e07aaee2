import type { Middleware } from 'koa';
import { digestApiToken } from '../domain/tokens.js';
import type { AccountStore, AuthenticatedToken } from '../store/resources/accounts.js';
import type { AuthThrottle } from './auth-throttle.js';
import type { AppState } from './context.js';
import { RequestTimeout, Unauthorized } from '../errors/errors.js';

export const TOKEN_HEADER = 'x-private-api-token';
export const TOKEN_FIELD = 'private_api_token';

const noop = async (): Promise<void> => {};

/**
 * Finds the private API token in the X-Private-Api-Token header, the query, or the body (in that
 * order of precedence, on v1 and v2 alike) and loads its account. The body is only parsed before
 * the check when the token can only be there; otherwise an unauthenticated caller costs no parsing.
 * The token is removed from the request input so that no handler or log ever sees it.
 */
export function authenticate(
  accounts: AccountStore,
  parseBody: Middleware<AppState>,
  throttle?: AuthThrottle,
  /** Told of every authenticated request's token (src/http/token-use.ts records its last use). */
  onUse?: (token: AuthenticatedToken) => void,
): Middleware<AppState> {
  return async (ctx, next) => {
    let token = ctx.get(TOKEN_HEADER) || firstString(ctx.query[TOKEN_FIELD]);
    if (token === undefined) {
      try {
        await parseBody(ctx, noop);
      } catch (error) {
        if (error instanceof RequestTimeout) throw error;
        throw new Unauthorized('No API token was provided (and the request body could not be read to look for one).');
      }
      token = firstString(bodyOf(ctx)?.[TOKEN_FIELD]);
    }
    if (token === undefined || token === '') {
      throw new Unauthorized(
        `No API token was provided: send it in the X-Private-Api-Token header, the ${TOKEN_FIELD} body field or the ${TOKEN_FIELD} query parameter.`,
      );
    }
    // Read from the store on every request (no cache): a token revoked a moment ago is refused now.
    const found = accounts.authenticate(digestApiToken(token));
    if (found === undefined) {
      await throttle?.apiFailed(ctx);
      throw new Unauthorized('The API token is invalid or has been revoked.');
    }
    ctx.state.account = found.account;
    onUse?.(found);

    await parseBody(ctx, noop);
    const body = bodyOf(ctx);
    if (body !== undefined) delete body[TOKEN_FIELD];
    return void (await next());
  };
}

function bodyOf(ctx: { request: { body?: unknown } }): Record<string, unknown> | undefined {
  const body = ctx.request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}
