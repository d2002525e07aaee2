import { parseDuration, settingReaders, splitList, type ReadSetting } from './settings.js';

/** Where and how the gateway calls providers (docs/design.md section 8, docs/connector-protocol.md). */
export interface ProviderConfig {
  /**
   * GATEWAY_CHAT_A_BUSINESS_API_URL: base of the cloud-style business API, version included
   * (`https://graph.example.com/v21.0`). Unset: `chat_a_business` sends fail as not configured.
   */
  cloudApiUrl: string | null;
  /**
   * GATEWAY_CHAT_A_BUSINESS_TOKEN: the operator's system-user token, used for `chat_a_business`
   * channels created by vendor_channel_id without a token of their own. Never logged.
   */
  cloudSystemToken: string | null;
  /** GATEWAY_CHAT_B_API_URL: base of the bot-style API (`https://api.bot.example`). Unset: not configured. */
  botApiUrl: string | null;
  /** GATEWAY_CONNECTOR_URL: base of our connector protocol's outbound half. Unset: not configured. */
  connectorUrl: string | null;
  /** GATEWAY_CONNECTOR_TOKEN: bearer token the gateway presents to the connector. Never logged. */
  connectorToken: string | null;
  /** GATEWAY_PROVIDER_TIMEOUT: time one provider call may take. Default 15s. */
  timeoutMs: number;
  /**
   * GATEWAY_PROVIDER_RETRY_SCHEDULE: delays before each new try of a send that failed transiently
   * (5xx, 429, network). Its length is the number of retries; after the last the message is `error`.
   * At most 4m in all (the tries wait inside the job's handler, under its stream lease). Default 1s,5s,30s,2m.
   */
  retryScheduleMs: number[];
  /** GATEWAY_PROVIDER_CHANNEL_CONCURRENCY: provider calls at once per channel and process. Default 4. */
  channelConcurrency: number;
  /** GATEWAY_PROVIDER_CHANNEL_RATE: provider calls per second per channel and process (fractions allowed). Default 20. */
  channelRatePerSecond: number;
  /** GATEWAY_SANDBOX: true replaces every provider by the built-in sandbox connector. Default false. */
  sandbox: boolean;
  /** GATEWAY_SANDBOX_STEP: the sandbox's pause between sent, delivered and read (and before "scanning" a QR). Default 1s. */
  sandboxStepMs: number;
}

/** The longest time a send may spend waiting between its tries (below the 5-minute stream lease). */
export const PROVIDER_RETRY_TOTAL_MAX_MS = 4 * 60_000;

const DURATION_EXAMPLES = '500ms, 15s or 5m';

/** Reads the provider settings; pushes one line per bad variable onto `problems`. */
export function readProviderConfig(read: ReadSetting, problems: string[]): ProviderConfig {
  const setting = settingReaders(read, problems);
  const secret = (key: string): string | null => {
    const text = read(key);
    if (text !== undefined && /\s/.test(text)) problems.push(`${key} must not contain spaces`);
    return text ?? null;
  };
  const cloudApiUrl = setting.baseUrl('GATEWAY_CHAT_A_BUSINESS_API_URL');
  const cloudSystemToken = secret('GATEWAY_CHAT_A_BUSINESS_TOKEN');
  const botApiUrl = setting.baseUrl('GATEWAY_CHAT_B_API_URL');
  const connectorUrl = setting.baseUrl('GATEWAY_CONNECTOR_URL');
  const connectorToken = secret('GATEWAY_CONNECTOR_TOKEN');
  const timeoutMs = setting.duration('GATEWAY_PROVIDER_TIMEOUT', 15_000, 100, DURATION_EXAMPLES);
  const scheduleText = read('GATEWAY_PROVIDER_RETRY_SCHEDULE') ?? '1s,5s,30s,2m';
  const schedule = scheduleText === 'none' ? [] : splitList(scheduleText).map(parseDuration);
  // The tries wait inside the job's handler, which holds the job's stream lease (5 minutes).
  const total = schedule.reduce<number>((sum, d) => sum + (d ?? 0), 0);
  if (schedule.length > 20 || schedule.some((d) => d === null) || total > PROVIDER_RETRY_TOTAL_MAX_MS) {
    problems.push(
      `GATEWAY_PROVIDER_RETRY_SCHEDULE must be up to 20 comma-separated durations adding up to at most 4m, or none (got "${scheduleText}")`,
    );
  }
  const channelConcurrency = setting.integer('GATEWAY_PROVIDER_CHANNEL_CONCURRENCY', 4, 1, 100);
  const rateText = read('GATEWAY_PROVIDER_CHANNEL_RATE') ?? '20';
  const rate = Number(rateText);
  if (!/^\d+(\.\d+)?$/.test(rateText) || rate < 0.01 || rate > 10_000) {
    problems.push(
      `GATEWAY_PROVIDER_CHANNEL_RATE must be a number of calls per second from 0.01 to 10000 (got "${rateText}")`,
    );
  }
  const sandboxText = (read('GATEWAY_SANDBOX') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(sandboxText))
    problems.push(`GATEWAY_SANDBOX must be true or false (got "${sandboxText}")`);
  return {
    cloudApiUrl,
    cloudSystemToken,
    botApiUrl,
    connectorUrl,
    connectorToken,
    timeoutMs,
    retryScheduleMs: schedule.map((d) => d ?? 0),
    channelConcurrency,
    channelRatePerSecond: Number.isFinite(rate) ? rate : 20,
    sandbox: sandboxText === 'true' || sandboxText === '1',
    sandboxStepMs: setting.duration('GATEWAY_SANDBOX_STEP', 1_000, 10, DURATION_EXAMPLES),
  };
}
