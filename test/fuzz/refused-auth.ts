/**
 * Requests without valid credentials: wrong, partial or missing API and admin tokens; for the web
 * faces, a wrong or missing session cookie and a change without its CSRF token.
 */
import fc from 'fast-check';
import { ADMIN_TOKEN, type FuzzWorld } from './fuzz-gateway.js';
import type { DocumentedOperation } from './operations.js';
import type { FuzzRequest } from './send.js';
import { pathWith, sessionHeaders } from './valid-parts.js';

/** Requests without valid credentials. */
export function brokenAuth(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  if (op.security === 'console' || op.security === 'portal') return brokenSession(world, op, op.security);
  if (op.security === 'none' && !op.statuses.includes(401)) return [];
  const target = pathWith(world, op);
  const bad = fc.oneof(
    fc.constant({}),
    fc
      .constantFrom('gwk_wrong', 'x', `${world.gw.token}x`, world.gw.token.slice(0, -1), ' ', ADMIN_TOKEN)
      .map((t) => ({ 'x-private-api-token': t })),
    fc
      .constantFrom(
        'Bearer',
        'Bearer ',
        'Basic abc',
        `Bearer ${ADMIN_TOKEN}x`,
        `Bearer ${world.gw.token}`,
        `bearer  ${ADMIN_TOKEN.slice(1)}`,
      )
      .map((a) => ({ authorization: a })),
    fc
      .string({ maxLength: 30 })
      .filter((s) => /^[\x21-\x7e]*$/.test(s))
      .map((t) => ({ 'x-private-api-token': t || 'z', authorization: `Bearer ${t || 'z'}` })),
  );
  return [
    bad
      .filter(
        (headers: Record<string, string>) =>
          op.security !== 'admin' || headers.authorization !== `Bearer ${ADMIN_TOKEN}`,
      )
      .map((headers) => ({ method: op.method, target, headers })),
  ];
}

/** Requests of a web face without its session: no cookie, a wrong one, the other face's; a change without the CSRF token. */
function brokenSession(
  world: FuzzWorld,
  op: DocumentedOperation,
  face: 'console' | 'portal',
): fc.Arbitrary<FuzzRequest>[] {
  const target = pathWith(world, op);
  const { cookie: validCookie, 'x-csrf-token': validCsrf } = sessionHeaders(world, face);
  const { cookie: otherCookie, 'x-csrf-token': otherCsrf } = sessionHeaders(
    world,
    face === 'console' ? 'portal' : 'console',
  );
  const name = validCookie.slice(0, validCookie.indexOf('='));
  const value = validCookie.slice(name.length + 1);
  const cookies = fc.oneof(
    fc.constantFrom(
      '',
      `${name}=`,
      `${name}=${value}x`,
      `${name}=${value.slice(0, -1)}`,
      `${name}=${otherCookie.slice(otherCookie.indexOf('=') + 1)}`,
      otherCookie,
      `${name.toUpperCase()}=${value}`,
    ),
    fc
      .string({ maxLength: 40 })
      .filter((s) => /^[\x21-\x7e]*$/.test(s) && !s.includes(';'))
      .map((s) => `${name}=${s}`)
      .filter((cookie) => cookie !== validCookie),
  );
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    cookies.map((cookie) => ({
      method: op.method,
      target,
      headers: { ...(cookie === '' ? {} : { cookie }), 'x-csrf-token': validCsrf },
    })),
  ];
  if (op.method !== 'GET') {
    const csrf = fc.oneof(
      fc.constantFrom('', validCsrf.slice(1), `${validCsrf}x`, otherCsrf),
      fc.string({ maxLength: 50 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
    );
    arbitraries.push(
      csrf
        .filter((token) => token !== validCsrf)
        .map((token) => ({
          method: op.method,
          target,
          headers: { cookie: validCookie, ...(token === '' ? {} : { 'x-csrf-token': token }) },
        })),
    );
  }
  return arbitraries;
}
