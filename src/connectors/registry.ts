import { TEMPLATE_PROVIDERS } from '../../schemas/provider-capabilities.js';
import type { ProviderConfig } from '../config/config.js';
import { callbackFamily } from '../domain/callback-secrets.js';
import { BotConnector } from './bot/bot-connector.js';
import { CloudConnector } from './cloud/cloud-connector.js';
import type {
  DeleteConnector,
  MessageActionConnector,
  SendConnector,
  SessionConnector,
  TemplateSource,
} from './connector.js';
import { ProviderHttp } from './http.js';
import { SandboxConnector, type SandboxReporter } from './sandbox/sandbox-connector.js';
import { ConnectorProtocolClient } from './session/session-connector.js';

/**
 * Which connector serves a provider: the family of its callbacks (cloud, bot, our connector
 * protocol), or the sandbox for every provider when GATEWAY_SANDBOX is on.
 */
export class Connectors {
  private readonly http: ProviderHttp;
  private readonly cloud: CloudConnector;
  private readonly bot: BotConnector;
  private readonly protocol: ConnectorProtocolClient;
  readonly sandbox: SandboxConnector | null;

  constructor(config: ProviderConfig, reporter: SandboxReporter) {
    this.http = new ProviderHttp(config.timeoutMs);
    this.cloud = new CloudConnector(this.http, { baseUrl: config.cloudApiUrl, systemToken: config.cloudSystemToken });
    this.bot = new BotConnector(this.http, config.botApiUrl);
    this.protocol = new ConnectorProtocolClient(this.http, {
      baseUrl: config.connectorUrl,
      token: config.connectorToken,
    });
    this.sandbox = config.sandbox ? new SandboxConnector(config.sandboxStepMs, reporter) : null;
  }

  sender(provider: string): SendConnector {
    if (this.sandbox !== null) return this.sandbox;
    const family = callbackFamily(provider);
    return family === 'cloud' ? this.cloud : family === 'bot' ? this.bot : this.protocol;
  }

  /**
   * The connection flows of a session-based provider, or of any auth connected by OAuth (our
   * connector protocol runs OAuth for every family); null otherwise: cloud- and bot-style channels
   * connect by their token.
   */
  session(provider: string, oauth = false): SessionConnector | null {
    if (!oauth && callbackFamily(provider) !== 'connector') return null;
    return this.sandbox ?? this.protocol;
  }

  /** Where messages of a provider are deleted (its sessions' connector). */
  deleter(): DeleteConnector {
    return this.sandbox ?? this.protocol;
  }

  /** Where a provider's reactions, edits and read receipts go: its family's connector. */
  actor(provider: string): MessageActionConnector {
    if (this.sandbox !== null) return this.sandbox;
    const family = callbackFamily(provider);
    return family === 'cloud' ? this.cloud : family === 'bot' ? this.bot : this.protocol;
  }

  /** Where a provider's templates come from; null for providers without templates. */
  templates(provider: string): TemplateSource | null {
    if (!(TEMPLATE_PROVIDERS as readonly string[]).includes(provider)) return null;
    return this.sandbox ?? this.cloud;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
