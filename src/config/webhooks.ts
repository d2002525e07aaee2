import { MAX_ENDPOINT_RETRY_ATTEMPTS, MAX_ENDPOINT_RETRY_DELAY_S } from '../../schemas/objects/webhook.js';
import { parseDuration, settingReaders, splitList, type ReadSetting, type SettingReaders } from './settings.js';

/** GATEWAY_WEBHOOK_RETENTION's default: a month of deliveries to look into and replay. */
export const WEBHOOK_RETENTION_DEFAULT_MS = 30 * 86_400_000;

/** The webhook dispatcher's settings (docs/design.md section 7). */
export interface WebhookConfig {
  /** GATEWAY_WEBHOOK_TIMEOUT: time one attempt may take (a duration: 15s, 500ms). Default 15s. */
  timeoutMs: number;
  /**
   * GATEWAY_WEBHOOK_RETRY_SCHEDULE: comma-separated delays before each attempt, the first one 0
   * (immediately). Default 0,5s,5m,30m,2h,5h,10h,10h: eight attempts.
   */
  retryScheduleMs: number[];
  /** GATEWAY_WEBHOOK_RETRY_JITTER: ±fraction applied to every delay, 0 to 0.5. Default 0.2. */
  retryJitter: number;
  /** GATEWAY_WEBHOOK_RETRY_AFTER_MAX: longest Retry-After (429/503) honoured; longer is cut. Default 1h. */
  retryAfterMaxMs: number;
  /**
   * GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY: attempts of one endpoint handed to the sender at once
   * (queued in order behind each other for the endpoint's events, sent at once for a bulk replay). Default 4.
   */
  endpointConcurrency: number;
  /** GATEWAY_WEBHOOK_DISABLE_AFTER: an endpoint without any success for this long is disabled. Default 5d. */
  disableAfterMs: number;
  /**
   * GATEWAY_WEBHOOK_RETENTION: delivered, failed and held deliveries (with their attempts) are
   * deleted once their last change is this old; pending ones stay. At least 1h. Default 30d.
   */
  retentionMs: number;
  /**
   * GATEWAY_WEBHOOK_THREADS: worker threads that sign and send the attempts, 0 to 16; 0 sends them
   * from the event loop itself. Default 1.
   */
  threads: number;
  /**
   * GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS: the most automatic attempts an endpoint's own
   * `retry_schedule` may make (the first one included), 1 to 20. Default 20.
   */
  endpointMaxAttempts: number;
  /**
   * GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY: the longest delay an endpoint's own `retry_schedule` may
   * wait before a retry, 1s to 7d. Default 1d.
   */
  endpointMaxDelayMs: number;
}

const DURATION_EXAMPLES = '500ms, 15s, 5m, 2h or 5d';

/** Reads the dispatcher's settings; pushes one line per bad variable onto `problems`. */
export function readWebhookConfig(read: ReadSetting, problems: string[]): WebhookConfig {
  const setting = settingReaders(read, problems);
  const scheduleText = read('GATEWAY_WEBHOOK_RETRY_SCHEDULE') ?? '0,5s,5m,30m,2h,5h,10h,10h';
  const retryScheduleMs = splitList(scheduleText).map(parseDuration);
  if (
    retryScheduleMs.length === 0 ||
    retryScheduleMs.length > 20 ||
    retryScheduleMs.some((d) => d === null) ||
    retryScheduleMs[0] !== 0
  ) {
    problems.push(
      `GATEWAY_WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated durations starting with 0 (got "${scheduleText}")`,
    );
  }
  const jitterText = read('GATEWAY_WEBHOOK_RETRY_JITTER') ?? '0.2';
  const retryJitter = Number(jitterText);
  if (!/^\d+(\.\d+)?$/.test(jitterText) || retryJitter > 0.5) {
    problems.push(`GATEWAY_WEBHOOK_RETRY_JITTER must be a fraction from 0 to 0.5 (got "${jitterText}")`);
  }
  return {
    timeoutMs: setting.duration('GATEWAY_WEBHOOK_TIMEOUT', 15_000, 100, DURATION_EXAMPLES),
    retryScheduleMs: retryScheduleMs.map((d) => d ?? 0),
    retryJitter,
    retryAfterMaxMs: setting.duration('GATEWAY_WEBHOOK_RETRY_AFTER_MAX', 3_600_000, 1_000, DURATION_EXAMPLES),
    endpointConcurrency: setting.integer('GATEWAY_WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100),
    disableAfterMs: setting.duration('GATEWAY_WEBHOOK_DISABLE_AFTER', 5 * 86_400_000, 1_000, DURATION_EXAMPLES),
    retentionMs: setting.duration(
      'GATEWAY_WEBHOOK_RETENTION',
      WEBHOOK_RETENTION_DEFAULT_MS,
      3_600_000,
      DURATION_EXAMPLES,
    ),
    threads: setting.integer('GATEWAY_WEBHOOK_THREADS', 1, 0, 16),
    endpointMaxAttempts: setting.integer(
      'GATEWAY_WEBHOOK_ENDPOINT_MAX_ATTEMPTS',
      MAX_ENDPOINT_RETRY_ATTEMPTS,
      1,
      MAX_ENDPOINT_RETRY_ATTEMPTS,
    ),
    endpointMaxDelayMs: readEndpointMaxDelay(setting, problems),
  };
}

/** GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY: 1s to the most an endpoint's schedule can ever name (7d). */
function readEndpointMaxDelay(setting: SettingReaders, problems: string[]): number {
  const fallback = 86_400_000;
  const value = setting.duration('GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY', fallback, 1_000, DURATION_EXAMPLES);
  if (value <= MAX_ENDPOINT_RETRY_DELAY_S * 1000) return value;
  problems.push(`GATEWAY_WEBHOOK_ENDPOINT_MAX_DELAY must be at most 7d (got ${value} ms)`);
  return fallback;
}
