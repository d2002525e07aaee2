import dns from 'node:dns';
import net, { BlockList } from 'node:net';

/** Ranges a webhook may never reach unless its host is allow-listed (GATEWAY_WEBHOOK_ALLOW_HOSTS). */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // unspecified / "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(host: string, address: string) {
    super(`refused to connect to ${host}: it resolves to ${address}, a private, loopback, link-local or reserved address`);
    this.name = 'BlockedAddressError';
  }
}

/** Whether an IP address is in a range webhooks may not reach. */
export function isBlockedAddress(address: string): boolean {
  // IPv4-mapped IPv6 (::ffff:a.b.c.d, ::ffff:7f00:1) is a way around the IPv4 rules; no real endpoint needs it.
  if (/^::ffff:/i.test(address)) return true;
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) return BLOCKED.check(address, 'ipv6');
  return true;
}

export class SsrfGuard {
  private readonly allowed: Set<string>;

  constructor(allowHosts: readonly string[]) {
    this.allowed = new Set(allowHosts.map((h) => h.toLowerCase().replace(/^\[|\]$/g, '')));
  }

  isAllowed(host: string): boolean {
    return this.allowed.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  /** For an IP literal in the URL (the connect-time lookup is skipped for those). */
  checkLiteral(host: string): void {
    const bare = host.replace(/^\[|\]$/g, '');
    if (net.isIP(bare) && !this.isAllowed(bare) && isBlockedAddress(bare)) throw new BlockedAddressError(host, bare);
  }

  /**
   * A `lookup` for net.connect: resolves the name, then refuses it when any address is blocked,
   * so the check applies to the address actually connected to (no DNS-rebinding gap).
   */
  readonly lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      if (!this.isAllowed(hostname)) {
        const bad = list.find((a) => isBlockedAddress(a.address) && !this.isAllowed(a.address));
        if (bad) return callback(new BlockedAddressError(hostname, bad.address) as NodeJS.ErrnoException, '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      callback(null, first.address, first.family);
    });
  };
}
