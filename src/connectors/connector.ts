/**
 * The connector interface (docs/design.md section 8): how the gateway talks to providers. Three HTTP
 * families mirror the callback families (cloud-style business API, bot-style API, our connector
 * protocol) and the sandbox stands in for all of them when GATEWAY_SANDBOX is on.
 */
import type { ProviderSendJob, SendRequest } from '../domain/messaging.js';
import type { DeleteRequest } from '../domain/message-deletion.js';
import type { MessageActionRequest } from '../domain/message-actions.js';

/** The send job shapes (src/domain/messaging.ts) are part of the interface every connector implements. */
export type { MediaKindOut, ProviderSendJob, SendRequest } from '../domain/messaging.js';
export type { DeleteRequest, ProviderDeleteJob } from '../domain/message-deletion.js';
export type { MessageAction, MessageActionRequest, ProviderMessageActionJob } from '../domain/message-actions.js';

export type ConnectorFamily = 'cloud' | 'bot' | 'connector';

/** A provider's refusal or failure, as the outcome records it (never a credential). */
export interface ProviderError {
  code: string;
  title: string;
}

export type SendResult =
  | { kind: 'sent'; externalId: string }
  /** permanent: will never succeed (4xx); otherwise worth trying again (5xx, 429, network). */
  | { kind: 'failed'; permanent: boolean; error: ProviderError; retryAfterMs?: number };

/** Something the connector reports later about a send (the sandbox's delivery receipts). */
export interface LaterStatus {
  afterMs: number;
  status: 'delivered' | 'read';
}

export interface SendConnector {
  send(job: ProviderSendJob & { send: SendRequest }): Promise<SendResult & { later?: LaterStatus[] }>;
}

/** A channel as the connection flows see it. */
export interface SessionChannel {
  id: number;
  provider: string;
  settings: Record<string, unknown>;
  credentials: Record<string, unknown>;
  /** Where the connector posts its events and the Standard Webhooks secret it signs them with. */
  callback: { url: string; signingSecret: string };
}

/** What starting a connection shows the user: a QR to scan, a code to type, an OAuth address. */
export interface ConnectionStart {
  qr?: string;
  code?: string;
  oauth_provider_url?: string;
  /** `enabled` when the provider connected at once (credential-based accounts). */
  state?: 'enabled' | 'pending';
}

export interface ConfirmAnswer {
  state: 'enabled' | 'pending';
  /** Instagram-type follow-ups (contract section 4, confirm). */
  two_factor_requires?: { value: number; key: string }[];
  confirmation_requires?: { value: number; label: string }[];
}

export interface Page {
  id: string;
  name: string;
  username?: string;
  /** Where the user authorizes this page, when the provider connects pages by OAuth. */
  oauth_provider_url?: string;
}

/** What the provider said after the user authorized at its OAuth address. */
export interface OAuthAnswer {
  /** `enabled`: connected; `pending` with `pages`: the user picks a page next (each with its own address). */
  state: 'enabled' | 'pending';
  pages?: Page[];
  /** The connected account, when the provider tells it. */
  account?: { phone?: string; username?: string };
}

/** The connection flows of session-based providers (our connector protocol). */
export interface SessionConnector {
  startSession(channel: SessionChannel): Promise<ConnectionStart>;
  requestCode(
    channel: SessionChannel,
    params: { challenge_variant?: string; challenge_type?: string },
  ): Promise<Record<string, unknown>>;
  confirm(
    channel: SessionChannel,
    params: {
      type: 'code' | 'password' | 'two_factor' | 'challenge';
      code?: string;
      password?: string;
      variant?: number;
    },
  ): Promise<ConfirmAnswer>;
  listPages(channel: SessionChannel): Promise<Page[]>;
  enablePage(channel: SessionChannel, pageId: string, syncPeriod: string): Promise<{ state: 'enabled' | 'pending' }>;
  disconnect(channel: SessionChannel): Promise<void>;
  /** Whether a phone number (digits, country code first) has an account at the provider. */
  userExists(channel: SessionChannel, phone: string): Promise<boolean>;
  /** The provider's OAuth redirect came back (its `code`, and the page it was for, if any). */
  completeOAuth(channel: SessionChannel, params: { code?: string; page?: string }): Promise<OAuthAnswer>;
}

export type DeleteResult =
  { kind: 'deleted' } | { kind: 'failed'; permanent: boolean; error: ProviderError; retryAfterMs?: number };

/** Providers that delete sent messages (our connector protocol, the sandbox). */
export interface DeleteConnector {
  deleteMessages(request: DeleteRequest, idempotencyKey: string): Promise<DeleteResult>;
}

export type ActionResult =
  { kind: 'done' } | { kind: 'failed'; permanent: boolean; error: ProviderError; retryAfterMs?: number };

/**
 * Providers that take the company's reactions, edits and read receipts (every family's connector,
 * each for what its provider has: schemas/provider-capabilities.ts).
 */
export interface MessageActionConnector {
  act(request: MessageActionRequest, idempotencyKey: string): Promise<ActionResult>;
}

/** A template as the provider lists it. */
export interface ProviderTemplate {
  id: string;
  name: string;
  language: string;
  body: string;
  header_content_type: string | null;
  header: string | null;
  namespace: string | null;
}

export interface TemplateSource {
  fetchTemplates(channel: {
    provider: string;
    settings: Record<string, unknown>;
    credentials: Record<string, unknown>;
  }): Promise<ProviderTemplate[]>;
}

/**
 * A provider call that did not succeed, thrown by the connection flows and template fetches (sends
 * answer a SendResult instead). `permanent` separates a refusal (wrong code: 4xx to the client)
 * from an outage (502).
 */
export class ConnectorCallError extends Error {
  constructor(
    readonly permanent: boolean,
    readonly error: ProviderError,
  ) {
    super(`${error.code}: ${error.title}`);
    this.name = 'ConnectorCallError';
  }
}
