import { describe, expect, it } from 'vitest';
import { SsrfGuard, classifyAddress, isBlockedAddress } from './ssrf.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['10.1.2.3', '10.1.2.3 is a private address'],
    ['172.16.0.1', '172.16.0.1 is a private address'],
    ['172.31.255.255', '172.31.255.255 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10)'],
    ['0.0.0.0', '0.0.0.0 is an unspecified ("this network") address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['255.255.255.255', '255.255.255.255 is the broadcast address'],
    ['192.88.99.1', '192.88.99.1 is a reserved address'],
    ['198.18.0.1', '198.18.0.1 is a reserved address'],
    ['::1', '::1 is a loopback address'],
    ['::', ':: is an unspecified ("this network") address'],
    ['fc00::1', 'fc00::1 is a unique-local address (fc00::/7)'],
    ['fd12::1', 'fd12::1 is a unique-local address (fc00::/7)'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['fec0::1', 'fec0::1 is a site-local address (fec0::/10)'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['2001:db8::1', '2001:db8::1 is a reserved address'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1 is an IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address'],
    ['::ffff:7f00:1', '::ffff:7f00:1 is an IPv4-mapped IPv6 address embedding 127.0.0.1, a loopback address'],
    [
      '::ffff:8.8.8.8',
      '::ffff:8.8.8.8 is an IPv4-mapped IPv6 address embedding 8.8.8.8, a public address this form is not used to reach',
    ],
    ['::127.0.0.1', '::127.0.0.1 is an IPv4-compatible IPv6 address embedding 127.0.0.1, a loopback address'],
    ['::7f00:1', '::7f00:1 is an IPv4-compatible IPv6 address embedding 127.0.0.1, a loopback address'],
    ['::ffff:0:a00:1', '::ffff:0:a00:1 is an IPv4-translated IPv6 address embedding 10.0.0.1, a private address'],
    ['2002:7f00:1::', '2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address'],
    ['2002:c0a8:101::1', '2002:c0a8:101::1 is a 6to4 address embedding 192.168.1.1, a private address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:4136:e378:8000:63bf:3fff:fdd2 is a Teredo address (2001::/32)'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:1 is a NAT64 address embedding 127.0.0.1, a loopback address'],
    ['64:ff9b::10.0.0.1', '64:ff9b::10.0.0.1 is a NAT64 address embedding 10.0.0.1, a private address'],
    ['64:ff9b:1::808:808', '64:ff9b:1::808:808 is in the local-use NAT64 prefix 64:ff9b:1::/48'],
    ['[::1]', '::1 is a loopback address'],
    ['localhost', 'localhost is not an IP address'],
  ])('refuses %s: %s', (address, reason) => {
    expect(classifyAddress(address)).toBe(reason);
    expect(isBlockedAddress(address)).toBe(true);
  });

  // Public addresses, and the transition forms that carry a public IPv4 address a network may route through.
  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::1'])(
    'allows %s',
    (address) => {
      expect(classifyAddress(address)).toBeNull();
      expect(isBlockedAddress(address)).toBe(false);
    },
  );
});

describe('SsrfGuard', () => {
  it('checks IP literals, unless allow-listed, naming the range', () => {
    expect(() => new SsrfGuard([]).checkLiteral('10.0.0.5')).toThrow(
      'refused to connect to 10.0.0.5: 10.0.0.5 is a private address, which the gateway does not reach unless GATEWAY_WEBHOOK_ALLOW_HOSTS names it',
    );
    expect(() => new SsrfGuard([]).checkLiteral('[::7f00:1]')).toThrow(
      /IPv4-compatible IPv6 address embedding 127\.0\.0\.1, a loopback address/,
    );
    expect(() => new SsrfGuard(['10.0.0.5']).checkLiteral('10.0.0.5')).not.toThrow();
    expect(() => new SsrfGuard([]).checkLiteral('hooks.example.com')).not.toThrow();
    expect(new SsrfGuard([]).refusalOf('[2002:7f00:1::]')?.reason).toBe(
      '2002:7f00:1:: is a 6to4 address embedding 127.0.0.1, a loopback address',
    );
  });

  it('refuses at lookup time a name that resolves to loopback', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      new SsrfGuard([]).lookup('localhost', {}, (e) => resolve(e)),
    );
    expect(error?.message).toMatch(
      /refused to connect to localhost: it resolves to (127\.0\.0\.1|::1); (127\.0\.0\.1|::1) is a loopback address/,
    );
    const allowed = await new Promise<Error | null>((resolve) =>
      new SsrfGuard(['localhost']).lookup('localhost', {}, (e) => resolve(e)),
    );
    expect(allowed).toBeNull();
  });
});
