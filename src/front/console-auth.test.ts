import { describe, expect, it } from 'vitest';
import { CONSOLE_SESSION, SESSION_CHECK_PATH as CONSOLE_CHECK_PATH } from '../console/routes.js';
import { CSRF_HEADER } from '../http/web-session.js';
import { callsAdminWithConsoleSession, CONSOLE_COOKIE, SESSION_CHECK_PATH, useAdminToken } from './console-auth.js';
import { routeOf } from './routing.js';

describe('the console through the front', () => {
  it('names the cookie, the header and the check route the console and the cores use', () => {
    expect(CONSOLE_COOKIE).toBe(CONSOLE_SESSION.cookieName);
    expect(SESSION_CHECK_PATH).toBe(CONSOLE_CHECK_PATH);
    expect(CSRF_HEADER).toBe('x-csrf-token');
    // The check goes to the home shard, where the session lives.
    expect(routeOf('POST', SESSION_CHECK_PATH)).toEqual({ kind: 'home' });
  });

  it('takes over exactly the admin calls that a core would authenticate by the console session', () => {
    const cookie = 'theme=dark; gw_console=gws_abc';
    expect(callsAdminWithConsoleSession('/admin/deliveries', { cookie })).toBe(true);
    expect(callsAdminWithConsoleSession('/admin/companies/3/endpoints/1/disable', { cookie })).toBe(true);
    // A bearer token wins over the cookie on a core too: the request goes on as it came.
    expect(callsAdminWithConsoleSession('/admin/deliveries', { cookie, authorization: 'Bearer x' })).toBe(false);
    expect(callsAdminWithConsoleSession('/admin/deliveries', { cookie: 'gw_console=' })).toBe(false);
    expect(callsAdminWithConsoleSession('/admin/deliveries', { cookie: 'gw_consoles=gws_abc' })).toBe(false);
    expect(callsAdminWithConsoleSession('/admin/deliveries', {})).toBe(false);
    expect(callsAdminWithConsoleSession('/console/session', { cookie })).toBe(false);
    expect(callsAdminWithConsoleSession('/administrator', { cookie })).toBe(false);
    expect(callsAdminWithConsoleSession('/p1/companies', { cookie })).toBe(false);
    for (const path of ['/admin/replays', '/admin/replays/rpl_1/cancel', '/admin/pipeline', '/admin/tokens/4/revoke'])
      expect(callsAdminWithConsoleSession(path, { cookie }), path).toBe(true);
    expect(callsAdminWithConsoleSession('/admin/companies/3/export', { cookie })).toBe(true);
  });

  it('leaves the admin routes that take the admin token alone to the core, which refuses the cookie', () => {
    const cookie = 'gw_console=gws_abc';
    for (const path of [
      '/admin/channels/1/callback',
      '/admin/CHANNELS/1/callback',
      '/admin/channels/1/templates/sync',
      '/admin/sandbox/channels/1/messages',
      '/admin/deliveriesx',
      '/admin/',
    ])
      expect(callsAdminWithConsoleSession(path, { cookie }), path).toBe(false);
  });

  it('sends the admin token on in place of the session cookie and the CSRF token, other cookies kept', () => {
    const headers: Record<string, string | undefined> = {
      cookie: 'theme=dark; gw_console=gws_secret; lang=en',
      'x-csrf-token': 'csrf-secret',
      'content-type': 'application/json',
    };
    useAdminToken(headers, 'adm_token');
    expect(headers).toEqual({
      cookie: 'theme=dark; lang=en',
      authorization: 'Bearer adm_token',
      'content-type': 'application/json',
    });
    const alone: Record<string, string | undefined> = { cookie: 'gw_console=gws_secret' };
    useAdminToken(alone, 'adm_token');
    expect(alone).toEqual({ authorization: 'Bearer adm_token' });
  });
});
