import dns from 'node:dns';
import type net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What the guard says of an address it refuses: the range it is in, in words (for the error's
 * detail); null for an address a webhook may reach.
 */
export type AddressVerdict = string | null;

/** ipaddr.js's names of the special-purpose ranges, as the refusal names them. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified ("this network") address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address',
  reserved: 'a reserved address',
  as112: 'an AS112 (DNS sink) address',
  amt: 'an AMT relay address',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local address (fec0::/10)',
  discard: 'a discard-only address (100::/64)',
  benchmarking: 'a benchmarking address',
  as112v6: 'an AS112 (DNS sink) address',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID address',
  segmentRouting: 'a segment-routing (SRv6) address',
};

/**
 * Classifies an IP address by ipaddr.js's table of special-purpose ranges (IANA's registries):
 * only a plain unicast address may be reached. IPv6 forms that carry an IPv4 address are judged by
 * it, so that no private IPv4 address is reached through its IPv6 spelling:
 * - IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`) and the deprecated
 *   IPv4-compatible (`::a.b.c.d`) forms are refused whatever they carry: a webhook names an IPv4
 *   receiver as IPv4, and the kernel may route these to the IPv4 address itself;
 * - NAT64 `64:ff9b::/96` (what a DNS64 resolver answers on an IPv6-only network) and 6to4
 *   `2002::/16` are refused when the IPv4 address they embed is not public unicast;
 * - the local-use NAT64 prefix `64:ff9b:1::/48` and Teredo `2001::/32` (whose client address is
 *   obfuscated) are refused outright.
 * Answers why the address is refused, or null. Anything that is not an IP address is refused.
 */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.replace(/^\[|\]$/g, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // parse, not process: an IPv4-mapped IPv6 address stays IPv6 and is judged as such below.
    parsed = ipaddr.parse(bare.includes(':') ? dottedTailAsHex(bare) : bare);
  } catch {
    return `${bare} is not an IP address`;
  }
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4, bare);
  return classifyV6(parsed as ipaddr.IPv6, bare);
}

/**
 * `::127.0.0.1` with its IPv4 tail as two hex groups (`::7f00:1`): ipaddr.js reads every dotted
 * tail as IPv4-mapped, which would name the IPv4-compatible form wrongly.
 */
function dottedTailAsHex(address: string): string {
  const match = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (match === null) return address;
  const [a, b, c, d] = match.slice(2).map(Number) as [number, number, number, number];
  if ([a, b, c, d].some((n) => n > 255)) return address;
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function classifyV4(ip: ipaddr.IPv4, shown: string): AddressVerdict {
  const words = v4Words(ip);
  return words === null ? null : `${shown} is ${words}`;
}

/** The range of a non-unicast IPv4 address in words; null for a plain unicast one. */
function v4Words(ip: ipaddr.IPv4): string | null {
  const range = ip.range();
  if (range === 'unicast') return null;
  return RANGE_WORDS[range] ?? `in the special-purpose range "${range}"`;
}

function classifyV6(ip: ipaddr.IPv6, shown: string): AddressVerdict {
  const parts = ip.parts;
  const range = ip.range();
  const embedded = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // "embedding 10.0.0.1, a private address"
  const inner = (v4: ipaddr.IPv4) =>
    `embedding ${v4.toString()}, ${v4Words(v4) ?? 'a public address this form is not used to reach'}`;

  if (range === 'ipv4Mapped') return `${shown} is an IPv4-mapped IPv6 address ${inner(ip.toIPv4Address())}`;
  if (range === 'rfc6145')
    return `${shown} is an IPv4-translated IPv6 address ${inner(embedded(parts[6]!, parts[7]!))}`;
  // ::/96 but :: and ::1 (unspecified, loopback): the deprecated IPv4-compatible form (RFC 4291).
  if (parts.slice(0, 6).every((p) => p === 0) && range !== 'unspecified' && range !== 'loopback') {
    return `${shown} is an IPv4-compatible IPv6 address ${inner(embedded(parts[6]!, parts[7]!))}`;
  }
  if (range === 'rfc6052') {
    if (parts[0] === 0x64 && parts[1] === 0xff9b && parts[2] === 1)
      return `${shown} is in the local-use NAT64 prefix 64:ff9b:1::/48`;
    const v4 = embedded(parts[6]!, parts[7]!);
    return v4Words(v4) === null ? null : `${shown} is a NAT64 address ${inner(v4)}`;
  }
  if (range === '6to4') {
    const v4 = embedded(parts[1]!, parts[2]!);
    return v4Words(v4) === null ? null : `${shown} is a 6to4 address ${inner(v4)}`;
  }
  if (range === 'teredo') return `${shown} is a Teredo address (2001::/32)`;
  if (range === 'unicast') return null;
  return `${shown} is ${RANGE_WORDS[range] ?? `in the special-purpose range "${range}"`}`;
}

/** Whether an IP address is in a range webhooks may not reach (see classifyAddress). */
export function isBlockedAddress(address: string): boolean {
  return classifyAddress(address) !== null;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    host: string,
    address: string,
    /** Why the address is refused: the range it is in (classifyAddress). */
    readonly reason: string = classifyAddress(address) ?? `${address} is refused`,
  ) {
    super(
      host.replace(/^\[|\]$/g, '') === address
        ? `refused to connect to ${host}: ${reason}, which the gateway does not reach unless GATEWAY_WEBHOOK_ALLOW_HOSTS names it`
        : `refused to connect to ${host}: it resolves to ${address}; ${reason}, which the gateway does not reach unless GATEWAY_WEBHOOK_ALLOW_HOSTS names it`,
    );
    this.name = 'BlockedAddressError';
  }
}

/**
 * The private-address guard of every outbound request of the gateway (webhooks, test POSTs,
 * attachments fetched by URL): an IP literal is checked before anything is sent (checkLiteral), a
 * name on the address actually connected to (lookup). Hosts and addresses in
 * GATEWAY_WEBHOOK_ALLOW_HOSTS are exempt.
 */
export class SsrfGuard {
  private readonly allowed: Set<string>;

  constructor(allowHosts: readonly string[]) {
    this.allowed = new Set(allowHosts.map((h) => h.toLowerCase().replace(/^\[|\]$/g, '')));
  }

  isAllowed(host: string): boolean {
    return this.allowed.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  /**
   * Why a URL's host may not be reached, when it is an IP literal the guard refuses; null for a
   * name (checked when it is resolved) or an address that may be reached or is allow-listed.
   */
  refusalOf(host: string): BlockedAddressError | null {
    const bare = host.replace(/^\[|\]$/g, '');
    if (!ipaddr.isValid(bare) || this.isAllowed(bare)) return null;
    const reason = classifyAddress(bare);
    return reason === null ? null : new BlockedAddressError(host, bare, reason);
  }

  /** For an IP literal in the URL (the connect-time lookup is skipped for those): throws BlockedAddressError. */
  checkLiteral(host: string): void {
    const refusal = this.refusalOf(host);
    if (refusal !== null) throw refusal;
  }

  /**
   * A `lookup` for net.connect: resolves the name, then refuses it when any address is blocked,
   * so the check applies to the address actually connected to (no DNS-rebinding gap).
   */
  readonly lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses;
      if (!this.isAllowed(hostname)) {
        const bad = list.find((a) => isBlockedAddress(a.address) && !this.isAllowed(a.address));
        if (bad) return callback(new BlockedAddressError(hostname, bad.address), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      callback(null, first.address, first.family);
    });
  };
}
