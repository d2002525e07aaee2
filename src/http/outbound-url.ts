import type { SsrfGuard } from '../net/ssrf.js';
import { ValidationFailed } from '../errors/errors.js';

/**
 * Refuses, as a 422 on `field`, a URL whose host is an IP literal the private-address guard refuses
 * (src/net/ssrf.ts), naming the range: the refusal comes from the guard when the URL is
 * given, not later from a connection that failed. A host name is checked on the addresses it
 * resolves to, each time a request is sent.
 */
export function requireReachableUrl(guard: SsrfGuard, url: string, field: string): void {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return; // the schema's own check names a malformed URL
  }
  const refusal = guard.refusalOf(host);
  if (refusal !== null) {
    throw ValidationFailed.field(
      field,
      `${field} may not point at ${host}: ${refusal.reason}, and the gateway sends nothing to private, loopback, link-local or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_HOSTS names them`,
    );
  }
}
