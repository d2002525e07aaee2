/**
 * The valid parts of a request for an operation: the ids of its path, its credentials, a plausible
 * input, the media types. A refused request keeps these around the one part it breaks, so that it
 * is refused for that part.
 */
import { plausible, propertiesOf, type Schema } from './bad-values.js';
import { ADMIN_TOKEN, type FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';

/** The ids a path parameter takes: account A's (valid) and account B's (foreign: 404 like a missing one). */
export function pathIds(world: FuzzWorld, op: DocumentedOperation, param: string): { own: string; foreign?: string } {
  const { own, foreign } = world;
  const admin = op.security === 'admin';
  const pick = (mine: number | string, theirs?: number): { own: string; foreign?: string } => ({
    own: String(mine),
    ...(theirs === undefined || admin ? {} : { foreign: String(theirs) }),
  });
  const [, storageKey, fileName] = new URL(own.attachmentUrl).pathname.split('/').slice(1);
  if (param === 'companyId' || (param === 'id' && op.path === '/p1/companies/{id}'))
    return pick(own.company, foreign.company);
  if (param === 'messageId') return pick(own.message, foreign.message);
  if (op.path.startsWith('/admin/sandbox/')) return { own: String(own.session) };
  if (param === 'channelId') return { own: String(own.cloud), foreign: String(own.chatB) }; // another provider's channel: 404 too
  if (param === 'deliveryId') return { own: 'dlv_missing' };
  if (param === 'taskId') return { own: 'rpl_missing' };
  // Never a token that exists: a request of the suite must not revoke the token it runs with.
  if (param === 'tokenId') return { own: '987654' };
  if (param === 'storageKey') return { own: storageKey! };
  if (param === 'fileName') return { own: fileName! };
  if (op.path.includes('/webhooks/')) return pick(own.webhook, foreign.webhook);
  if (op.path.startsWith('/api/p2/conversations/') || op.path.includes('/conversations/{id}'))
    return pick(own.conversation, foreign.conversation);
  return pick(own.chatB, foreign.chatB); // channels, auths, admin channels
}

/** Path with one parameter broken (unknown, foreign, malformed), or all as they are. */
export function pathWith(world: FuzzWorld, op: DocumentedOperation, broken?: { param: string; value: string }): string {
  return op.path.replace(/\{([A-Za-z_]+)\}/g, (_m, param: string) =>
    broken?.param === param ? broken.value : pathIds(world, op, param).own,
  );
}

/** The names of the path's `{param}` segments, in order. */
export function paramsOf(op: DocumentedOperation): string[] {
  return [...op.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
}

/** Valid credentials of the operation's kind. */
export function credentials(op: DocumentedOperation, world: FuzzWorld): Record<string, string> {
  if (op.security === 'admin') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (op.security === 'api') return { 'x-private-api-token': world.gw.token };
  if (op.security === 'console' || op.security === 'portal') return sessionHeaders(world, op.security);
  return {};
}

/** The cookie and CSRF token of the web face's session, which a suite opened before. */
export function sessionHeaders(
  world: FuzzWorld,
  face: 'console' | 'portal',
): { cookie: string; 'x-csrf-token': string } {
  const session = world.sessions?.[face];
  if (session === undefined) throw new Error(`the ${face} session was not opened before fuzzing its routes`);
  return { cookie: session.cookie, 'x-csrf-token': session.csrf };
}

/** A plausible input around the one broken field: the required fields, with the company of the path or of account A. */
export function baseline(schema: Schema, world: FuzzWorld): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const properties = propertiesOf(schema);
  for (const name of (schema.required as string[] | undefined) ?? []) {
    const property = properties.get(name);
    if (property !== undefined) input[name] = plausible(property);
  }
  if (properties.has('company_id')) input.company_id = world.own.company;
  if (properties.has('hub.mode'))
    Object.assign(input, { 'hub.mode': 'subscribe', 'hub.verify_token': 'not-the-token', 'hub.challenge': '1' });
  return input;
}

export const JSON_TYPE = { 'content-type': 'application/json' };
export const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
