import { settingReaders, type ReadSetting } from './settings.js';

/** The limits that keep slow or hostile clients from holding the server (docs/configuration.md). */
export interface HttpLimits {
  /** GATEWAY_UPLOAD_CONCURRENCY: uploads received at once; one more answers 503 with Retry-After. Default 8. */
  uploadConcurrency: number;
  /**
   * GATEWAY_HEADERS_TIMEOUT: time a client has to send the request line and headers (Node's
   * server.headersTimeout); a slower one gets 408 and its connection is closed. Default 20s.
   */
  headersTimeoutMs: number;
  /**
   * GATEWAY_REQUEST_TIMEOUT: time a client has to send a whole request, body included (Node's
   * server.requestTimeout); at least GATEWAY_HEADERS_TIMEOUT. Default 2m (a 16 MiB upload at 1 Mbit/s).
   */
  requestTimeoutMs: number;
  /**
   * GATEWAY_BODY_TIMEOUT: time a JSON or form body, a callback's body, or an upload's body received
   * before its token is known, may take to arrive from the start of its reading; a slower one is a
   * 408 and its connection is closed. Default 10s.
   */
  bodyTimeoutMs: number;
  /** GATEWAY_JSON_MAX_DEPTH: deepest nesting of objects and arrays in a JSON body or callback; deeper is a 400. Default 32. */
  jsonMaxDepth: number;
  /** GATEWAY_QUERY_MAX_BYTES: longest query string (after `?`, as sent); longer is a 414. Default 8192. */
  queryMaxBytes: number;
  /**
   * GATEWAY_ADMIN_AUTH_FREE_FAILURES: wrong admin tokens one address may send within 15 minutes
   * (admin API, /metrics, console login together) before each further one makes it wait, 1 s
   * doubling up to 15 minutes (src/http/auth-throttle.ts). Default 10.
   */
  adminAuthFreeFailures: number;
  /**
   * GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES: wrong admin tokens a minute from all addresses together past
   * which every admin-token check is paced (5 a second): slowed, never refused. Default 100.
   */
  adminAuthGlobalFailures: number;
}

/** Reads the HTTP limits; pushes one line per bad variable onto `problems`. */
export function readHttpLimits(read: ReadSetting, problems: string[]): HttpLimits {
  const setting = settingReaders(read, problems);
  const headersTimeoutMs = setting.duration('GATEWAY_HEADERS_TIMEOUT', 20_000, 1_000, '20s or 2m');
  const requestTimeoutMs = setting.duration('GATEWAY_REQUEST_TIMEOUT', 120_000, 1_000, '20s or 2m');
  if (requestTimeoutMs < headersTimeoutMs) {
    problems.push(
      `GATEWAY_REQUEST_TIMEOUT must be at least GATEWAY_HEADERS_TIMEOUT (got ${requestTimeoutMs} ms and ${headersTimeoutMs} ms)`,
    );
  }
  return {
    uploadConcurrency: setting.integer('GATEWAY_UPLOAD_CONCURRENCY', 8, 1, 1_000),
    headersTimeoutMs,
    requestTimeoutMs,
    bodyTimeoutMs: setting.duration('GATEWAY_BODY_TIMEOUT', 10_000, 100, '10s or 30s'),
    jsonMaxDepth: setting.integer('GATEWAY_JSON_MAX_DEPTH', 32, 2, 1_000),
    // Node refuses request heads over 16 KiB (431) before any of this runs.
    queryMaxBytes: setting.integer('GATEWAY_QUERY_MAX_BYTES', 8_192, 256, 16_384),
    adminAuthFreeFailures: setting.integer('GATEWAY_ADMIN_AUTH_FREE_FAILURES', 10, 1, 1_000_000),
    adminAuthGlobalFailures: setting.integer('GATEWAY_ADMIN_AUTH_GLOBAL_FAILURES', 100, 1, 1_000_000),
  };
}
