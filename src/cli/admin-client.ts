import type { Config } from '../config/config.js';

/** Calls the running daemon's admin API (GATEWAY_PUBLIC_URL, GATEWAY_ADMIN_TOKEN); throws with the error details. */
export async function adminCall(
  config: Config,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, any>> {
  if (config.adminToken === null) throw new Error('GATEWAY_ADMIN_TOKEN is not set (the admin API is off without it)');
  const response = await fetch(`${config.publicUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${config.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json().catch(() => ({}))) as Record<string, any>;
  if (!response.ok)
    throw new Error(parsed.errors?.map((e: { detail: string }) => e.detail).join('; ') ?? `HTTP ${response.status}`);
  return parsed;
}
