import { callbackFamily, presentedSecret } from '../domain/callback-secrets.js';
import { applyCallback } from '../domain/incoming.js';
import { qrDataUrl } from '../lib/qr-image.js';
import {
  Conflict,
  NotFound,
  ProviderRefused,
  ProviderUnavailable,
  ServiceUnavailable,
  WrongProvider,
} from '../errors/errors.js';
import { confirmationMethod } from '../presenters/auth.js';
import { sameSecret } from '../domain/tokens.js';
import type { IngestItem } from '../domain/provider-facts.js';
import type { Logger } from '../log.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { Presenters } from '../presenters/presenters.js';
import type { Store } from '../store/store.js';
import {
  ConnectorCallError,
  type ConfirmAnswer,
  type ConnectionStart,
  type Page,
  type SessionChannel,
  type SessionConnector,
} from './connector.js';
import type { Connectors } from './registry.js';
import type { ChannelThrottle } from './throttle.js';
import { storeSyncedTemplates } from './template-sync.js';

export interface ConnectionFlowDeps {
  store: Store;
  connectors: Connectors;
  throttle: ChannelThrottle;
  publicUrl: string;
  presenters: Presenters;
  logger: Logger;
}

/** What a connection step showed, for the answer: `qr`, `code` or `oauth_provider_url`. */
export type ConnectionSignal = Pick<ConnectionStart, 'qr' | 'code' | 'oauth_provider_url'>;

/**
 * The connection flows of channels (v1) and auths (v2), docs/design.md section 8: the core calls the
 * provider's connector synchronously (the API answer carries what it says), then records what
 * changed through applyCallback, the normalization of provider callbacks — a QR, code or OAuth
 * address as `auth.update` (plus the v1 payload), a connection as the move to `enabled`.
 */
export class ConnectionFlows {
  constructor(private readonly deps: ConnectionFlowDeps) {}

  /** Whether the channel's connection goes through our connector protocol (sessions, or OAuth for any provider). */
  hasSession(channel: Pick<ChannelRow, 'provider' | 'settings'>): boolean {
    return callbackFamily(channel.provider) === 'connector' || confirmationMethod(channel) === 'oauth';
  }

  /**
   * Right after a channel was created: starts its session and records what it showed. A connector
   * that cannot be reached leaves the channel as created (logged); v2 confirm starts it again.
   */
  async startAfterCreate(channel: ChannelRow): Promise<ConnectionSignal> {
    if (!this.hasSession(channel)) return {};
    try {
      return await this.start(channel);
    } catch (error) {
      this.deps.logger.warn(
        { channel: channel.id, provider: channel.provider, error: (error as Error).message },
        'could not start the connection; confirm starts it again',
      );
      return {};
    }
  }

  /** Starts (or restarts) a channel's session: a fresh QR, pairing code or OAuth address. */
  async start(channel: ChannelRow): Promise<ConnectionSignal> {
    const connector = this.session(channel, 'starting a connection');
    const start = await this.call(channel, (c) => connector.startSession(c));
    const items: IngestItem[] = [];
    if (start.qr !== undefined) items.push({ kind: 'qr', qr: start.qr });
    if (start.code !== undefined) items.push({ kind: 'code', code: start.code });
    if (start.oauth_provider_url !== undefined)
      items.push({ kind: 'oauth', oauthProviderUrl: start.oauth_provider_url });
    if (start.state === 'enabled') items.push({ kind: 'state', state: 'enabled', reason: null });
    this.record(channel, items);
    return signalOf(start);
  }

  /** v1 request_code and the pairing code of v2 confirm: the connector's answer as it gave it. */
  async requestCode(
    channel: ChannelRow,
    params: { challenge_variant?: string; challenge_type?: string },
  ): Promise<Record<string, unknown>> {
    const connector = this.session(channel, 'request_code');
    const answer = await this.call(channel, (c) => connector.requestCode(c, params));
    if (typeof answer.code === 'string') this.record(channel, [{ kind: 'code', code: answer.code }]);
    return answer;
  }

  /** Passes a code or password to the provider; `enabled` moves the channel (with its events). */
  async confirm(channel: ChannelRow, params: Parameters<SessionConnector['confirm']>[1]): Promise<ConfirmAnswer> {
    const connector = this.session(channel, 'confirm');
    const answer = await this.call(channel, (c) => connector.confirm(c, params));
    if (answer.state === 'enabled') this.record(channel, [{ kind: 'state', state: 'enabled', reason: null }]);
    return answer;
  }

  async listPages(channel: ChannelRow): Promise<Page[]> {
    const connector = this.session(channel, 'listing pages');
    return this.call(channel, (c) => connector.listPages(c));
  }

  async enablePage(channel: ChannelRow, pageId: string, syncPeriod: string): Promise<'enabled' | 'pending'> {
    const connector = this.session(channel, 'enable_page_instagram');
    const { state } = await this.call(channel, (c) => connector.enablePage(c, pageId, syncPeriod));
    if (state === 'enabled')
      this.record(channel, [
        { kind: 'page_enabled', pageId },
        { kind: 'state', state: 'enabled', reason: null },
      ]);
    return state;
  }

  /** Whether a phone number has an account at the channel's provider (v1 user_exists). */
  async userExists(channel: ChannelRow, phone: string): Promise<boolean> {
    const connector = this.session(channel, 'user_exists');
    return this.call(channel, (c) => connector.userExists(c, phone));
  }

  /**
   * The provider's OAuth redirect of an unconfirmed OAuth auth: `state` must be the auth's own. The
   * connector completes the authorization; its news is recorded like a callback's — the pages to
   * pick (each with its address), or the page connected and the auth enabled.
   */
  async completeOAuth(
    channel: ChannelRow,
    params: { state: string; code?: string; page?: string },
  ): Promise<'enabled' | 'pending'> {
    const expected = channel.credentials.oauth_state;
    if (
      confirmationMethod(channel) !== 'oauth' ||
      typeof expected !== 'string' ||
      !sameSecret(params.state, expected)
    ) {
      throw new NotFound('No authorization is waiting for this address.');
    }
    if (channel.state !== 'unconfirmed') throw new Conflict(`Auth ${channel.id} is ${channel.state} already.`);
    const connector = this.session(channel, 'OAuth');
    const answer = await this.call(channel, (c) =>
      connector.completeOAuth(c, {
        ...(params.code === undefined ? {} : { code: params.code }),
        ...(params.page === undefined ? {} : { page: params.page }),
      }),
    );
    const items: IngestItem[] = [];
    if (answer.pages !== undefined) {
      items.push({
        kind: 'pages',
        pages: answer.pages.map((p) => ({
          id: p.id,
          name: p.name,
          ...(p.username === undefined ? {} : { username: p.username }),
          ...(p.oauth_provider_url === undefined ? {} : { oauthProviderUrl: p.oauth_provider_url }),
        })),
      });
    }
    if (answer.state === 'enabled') {
      if (params.page !== undefined) items.push({ kind: 'page_enabled', pageId: params.page });
      items.push({
        kind: 'state',
        state: 'enabled',
        reason: 'authorized at the provider',
        ...(answer.account === undefined ? {} : { account: answer.account }),
      });
    }
    this.record(channel, items);
    return answer.state;
  }

  /** After a delete: tells the connector to end the session; failures are only logged. */
  disconnectLater(channel: ChannelRow): void {
    if (!this.hasSession(channel)) return;
    const connector = this.session(channel, 'disconnect');
    this.call(channel, (c) => connector.disconnect(c)).catch((error: unknown) =>
      this.deps.logger.warn(
        { channel: channel.id, error: (error as Error).message },
        'could not end the session at the connector',
      ),
    );
  }

  /** Templates of a `chat_a_business` channel, synced from the provider: written by storeSyncedTemplates (template-sync.ts). */
  async syncTemplates(channel: ChannelRow): Promise<{ synced: number; removed: number }> {
    const source = this.deps.connectors.templates(channel.provider);
    if (source === null)
      throw new WrongProvider(
        `${channel.provider} channels have no message templates; only chat_a_business channels do.`,
      );
    const templates = await this.call(channel, () => source.fetchTemplates(channel));
    return storeSyncedTemplates(this.deps.store, channel, templates);
  }

  /** Sync after create, in the background: the channel exists whatever the provider answers. */
  syncTemplatesLater(channel: ChannelRow): void {
    if (this.deps.connectors.templates(channel.provider) === null) return;
    this.syncTemplates(channel).then(
      (result) => this.deps.logger.info({ channel: channel.id, ...result }, 'templates synced'),
      (error: unknown) =>
        this.deps.logger.warn({ channel: channel.id, error: (error as Error).message }, 'could not sync templates'),
    );
  }

  private session(channel: ChannelRow, action: string): SessionConnector {
    const connector = this.deps.connectors.session(channel.provider, confirmationMethod(channel) === 'oauth');
    if (connector === null)
      throw new WrongProvider(
        `${action} is not an action of ${channel.provider} channels: they connect by their token, without a session.`,
      );
    return connector;
  }

  /** One provider call within the channel's limits; the provider's failures as API errors. */
  private async call<T>(channel: ChannelRow, fn: (session: SessionChannel) => Promise<T>): Promise<T> {
    try {
      return await this.deps.throttle.run(channel.id, () => fn(this.sessionChannel(channel)));
    } catch (error) {
      if (!(error instanceof ConnectorCallError)) throw error;
      if (error.error.code === 'not_configured')
        throw new ServiceUnavailable(`Provider connectors are not configured: ${error.error.title}`);
      if (error.permanent)
        throw new ProviderRefused(`The provider refused: ${error.error.title} (${error.error.code})`);
      throw new ProviderUnavailable(
        `The provider could not complete the step: ${error.error.title} (${error.error.code}). Try again later.`,
      );
    }
  }

  private sessionChannel(channel: ChannelRow): SessionChannel {
    const settings = this.deps.store.callbacks.get(channel.id);
    return {
      id: channel.id,
      provider: channel.provider,
      settings: channel.settings,
      credentials: channel.credentials,
      callback: {
        url: `${this.deps.publicUrl}/callbacks/${channel.provider}/${channel.id}`,
        signingSecret: presentedSecret('connector', settings.signing_secret),
      },
    };
  }

  /** Records connection news through the callback normalization, in one transaction. */
  private record(channel: ChannelRow, items: IngestItem[]): void {
    if (items.length === 0) return;
    const { store, presenters } = this.deps;
    const api = store.callbacks.get(channel.id).api;
    applyCallback(store, { id: channel.id, api }, { receipt: null, items }, presenters);
  }
}

/** What the answer shows: the QR as a PNG data URL (an `<img>` shows it, a phone reads it), the rest as given. */
function signalOf(start: ConnectionStart): ConnectionSignal {
  const signal: ConnectionSignal = {};
  if (start.qr !== undefined) signal.qr = qrDataUrl(start.qr);
  if (start.code !== undefined) signal.code = start.code;
  if (start.oauth_provider_url !== undefined) signal.oauth_provider_url = start.oauth_provider_url;
  return signal;
}
