import { describe, expect, it } from 'vitest';
import { SsrfGuard, isBlockedAddress } from './ssrf.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fc00::1', 'fd12::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:8.8.8.8', '::ffff:7f00:1',
  ])('refuses %s', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111'])('allows %s', (address) => expect(isBlockedAddress(address)).toBe(false));
});

describe('SsrfGuard', () => {
  it('checks IP literals, unless allow-listed', () => {
    expect(() => new SsrfGuard([]).checkLiteral('10.0.0.5')).toThrow(/private, loopback/);
    expect(() => new SsrfGuard([]).checkLiteral('[::1]')).toThrow();
    expect(() => new SsrfGuard(['10.0.0.5']).checkLiteral('10.0.0.5')).not.toThrow();
  });

  it('refuses at lookup time a name that resolves to loopback', async () => {
    const error = await new Promise<Error | null>((resolve) => new SsrfGuard([]).lookup('localhost', {}, (e) => resolve(e)));
    expect(error?.message).toMatch(/refused to connect to localhost/);
    const allowed = await new Promise<Error | null>((resolve) => new SsrfGuard(['localhost']).lookup('localhost', {}, (e) => resolve(e)));
    expect(allowed).toBeNull();
  });
});
