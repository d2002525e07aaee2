import type { Router } from '@koa/router';
import { oauthRedirectQuery } from '../../schemas/callbacks/oauth.js';
import type { ConnectionFlows } from '../connectors/flows.js';
import { NotFound } from '../errors/errors.js';
import type { AppState } from '../http/context.js';
import { pathId } from '../http/params.js';
import { validator } from '../http/validate.js';
import type { Store } from '../store/store.js';

const validateRedirect = validator(oauthRedirectQuery);

/**
 * The OAuth redirect of auths connected by OAuth (docs/decisions.md, "Hosted-service compatibility
 * (v2)"): the provider sends the user's browser back here with the auth's `state`, its code and,
 * for a provider whose pages are authorized one by one, the page. Not behind the API token: the
 * `state` (24 random bytes, kept with the auth's credentials) is the capability, compared in
 * constant time; a wrong one answers 404 like an unknown auth. Answers `{status: 'ok', state}`:
 * `enabled` once connected, `pending` when pages are listed to pick from (auth.update carries them).
 */
export function oauthRoutes(router: Router<AppState>, store: Store, flows: ConnectionFlows): void {
  router.get('/callbacks/:provider/:channelId/oauth', async (ctx) => {
    const provider = ctx.params.provider!;
    const channel = store.channels.findLive(pathId(ctx.params.channelId, `${provider} auth`));
    if (channel === undefined || channel.provider !== provider)
      throw new NotFound(`${provider} auth ${ctx.params.channelId ?? ''} was not found.`);
    const query = validateRedirect({ ...ctx.query }, 'text');
    const state = await flows.completeOAuth(channel, query);
    ctx.body = { status: 'ok', state };
  });
}
