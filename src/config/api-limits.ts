import { parseDuration, type ReadSetting } from './settings.js';

/**
 * The REST API's rate limits and the limits of fetching an attachment by URL (docs/configuration.md,
 * "API limits"). The rate limits are the hosted service's documented ones (its v2 rate-limits page
 * and the upload page's note), per account and route group, on by default.
 */
export interface ApiLimitsConfig {
  /**
   * GATEWAY_API_RATE_LIMITS: `on` (default) or `off`. On: every group of RATE_LIMIT_GROUPS holds its
   * windows per account, a request past one answers 429 with Retry-After.
   */
  rateLimits: RateLimitGroup[];
  /**
   * GATEWAY_API_RATE_LIMIT_FACTOR: multiplies the requests every window allows (rounded, at least
   * 1), 0.01 to 100000. Default 1: the documented values.
   */
  rateLimitFactor: number;
  /** GATEWAY_ATTACHMENT_FETCH_TIMEOUT: time a `file_url` download may take as a whole. Default 30s. */
  attachmentFetchTimeoutMs: number;
}

/** At most `points` requests per `seconds`. */
export interface RateWindow {
  points: number;
  seconds: number;
}

/** Routes sharing one budget per account: `method` and the router's path patterns. */
export interface RateLimitGroup {
  name: string;
  method: 'GET' | 'POST';
  paths: readonly string[];
  windows: readonly RateWindow[];
}

const perMinute = (points: number): RateWindow => ({ points, seconds: 60 });
const perSecond = (points: number): RateWindow => ({ points, seconds: 1 });

/** The documented limits: pact-im/api-doc content/en/v2/rate-limits.md and content/ru/v2/attachments/upload-attachment.md. */
export const RATE_LIMIT_GROUPS: readonly RateLimitGroup[] = [
  { name: 'messages.list', method: 'GET', paths: ['/api/p2/conversations/:id/messages'], windows: [perMinute(20)] },
  {
    name: 'messages.show',
    method: 'GET',
    paths: ['/api/p2/conversations/:id/messages/:messageId'],
    windows: [perMinute(20)],
  },
  { name: 'conversations.list', method: 'GET', paths: ['/api/p2/conversations'], windows: [perMinute(10)] },
  { name: 'conversations.show', method: 'GET', paths: ['/api/p2/conversations/:id'], windows: [perMinute(10)] },
  {
    name: 'messages.send',
    method: 'POST',
    paths: ['/api/p2/conversations/:id/messages'],
    windows: [perSecond(5), perMinute(30)],
  },
  { name: 'messages.write_first', method: 'POST', paths: ['/api/p2/messages'], windows: [perSecond(5), perMinute(30)] },
  { name: 'biz_templates.list', method: 'GET', paths: ['/api/p2/biz_templates'], windows: [perMinute(20)] },
  {
    name: 'attachments.upload',
    method: 'POST',
    paths: ['/api/p2/attachments', '/api/p2/companies/:companyId/attachments'],
    windows: [perSecond(5), perMinute(30)],
  },
];

/** Reads the API limits; pushes one line per bad variable onto `problems`. */
export function readApiLimits(read: ReadSetting, problems: string[]): ApiLimitsConfig {
  const switchText = (read('GATEWAY_API_RATE_LIMITS') ?? 'on').toLowerCase();
  if (switchText !== 'on' && switchText !== 'off')
    problems.push(`GATEWAY_API_RATE_LIMITS must be on or off (got "${switchText}")`);

  const factorText = read('GATEWAY_API_RATE_LIMIT_FACTOR') ?? '1';
  let factor = Number(factorText);
  if (!/^\d+(\.\d+)?$/.test(factorText) || factor < 0.01 || factor > 100_000) {
    problems.push(`GATEWAY_API_RATE_LIMIT_FACTOR must be a number from 0.01 to 100000 (got "${factorText}")`);
    factor = 1;
  }

  const timeoutText = read('GATEWAY_ATTACHMENT_FETCH_TIMEOUT');
  let attachmentFetchTimeoutMs = timeoutText === undefined ? 30_000 : parseDuration(timeoutText);
  if (attachmentFetchTimeoutMs === null || attachmentFetchTimeoutMs < 100 || attachmentFetchTimeoutMs > 600_000) {
    problems.push(
      `GATEWAY_ATTACHMENT_FETCH_TIMEOUT must be a duration from 100ms to 10m, such as 30s (got "${timeoutText}")`,
    );
    attachmentFetchTimeoutMs = 30_000;
  }

  const scaled = RATE_LIMIT_GROUPS.map((group) => ({
    ...group,
    windows: group.windows.map((w) => ({ seconds: w.seconds, points: Math.max(1, Math.round(w.points * factor)) })),
  }));
  return { rateLimits: switchText === 'off' ? [] : scaled, rateLimitFactor: factor, attachmentFetchTimeoutMs };
}
