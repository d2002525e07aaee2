import type Router from '@koa/router';
import { pathId } from '../http/params.js';
import { callbackFamily, presentedSecret, type CallbackFamily } from '../domain/callback-secrets.js';
import type { AppState } from '../http/context.js';
import { NotFound } from '../errors/errors.js';
import type { ChannelCallbackRow } from '../store/resources/callbacks.js';
import type { Store } from '../store/store.js';
import { BOT_SECRET_HEADER, CLOUD_SIGNATURE_HEADER } from '../ingest/verify.js';
import { authenticateAdmin } from './authenticate-admin.js';
import type { AuthThrottle } from '../http/auth-throttle.js';

export interface AdminCallbackDeps {
  store: Store;
  adminToken: string;
  publicUrl: string;
  cloudAppSecret: string | null;
  throttle?: AuthThrottle;
}

/**
 * GET /admin/channels/<id>/callback: where a channel's provider posts and how it proves itself
 * (docs/design.md section 5), for operators only — the v1/v2 API never shows these secrets.
 */
export function adminCallbackRoutes(router: Router<AppState>, deps: AdminCallbackDeps): void {
  const { store } = deps;
  router.get('/admin/channels/:id/callback', authenticateAdmin(deps.adminToken, { throttle: deps.throttle }), (ctx) => {
    const channel = store.channels.findLive(pathId(ctx.params.id, 'Channel'));
    if (channel === undefined) throw new NotFound(`Channel ${ctx.params.id ?? ''} was not found.`);
    // Read only: every channel got its secrets in createAuth (older ones from migration 004).
    const settings = store.callbacks.get(channel.id);
    const family = callbackFamily(channel.provider);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      url: `${deps.publicUrl}/callbacks/${channel.provider}/${channel.id}`,
      provider: channel.provider,
      family,
      secrets: presentSecrets(family, settings, deps.cloudAppSecret),
    };
  });
}

function presentSecrets(
  family: CallbackFamily,
  settings: ChannelCallbackRow,
  cloudAppSecret: string | null,
): Record<string, unknown> {
  switch (family) {
    case 'cloud':
      return {
        // With GATEWAY_CHAT_A_BUSINESS_APP_SECRET the operator's app signs: that secret is not echoed here.
        app_secret: cloudAppSecret === null ? presentedSecret('cloud', settings.signing_secret) : null,
        app_secret_source: cloudAppSecret === null ? 'channel' : 'configuration',
        verify_token: settings.verify_token,
        signature_header: CLOUD_SIGNATURE_HEADER,
      };
    case 'bot':
      return { secret_token: presentedSecret('bot', settings.signing_secret), header: BOT_SECRET_HEADER };
    case 'connector':
      return { signing_secret: presentedSecret('connector', settings.signing_secret), scheme: 'standard-webhooks' };
  }
}
