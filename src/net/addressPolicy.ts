import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { ServiceError } from '../errors';
import { nameLookup, type NameLookup } from './nameLookup';

/**
 * Decides which URLs and addresses the service may reach. A page fetch must never reach
 * the service's own network: loopback, private ranges, link-local (cloud metadata
 * services live there), and every other non-public range, in IPv4 and IPv6 forms alike.
 * The same policy runs at the API, before every connection (after DNS) and on every redirect.
 */

/** Names that resolve to internal services by convention, whatever DNS says. */
const INTERNAL_NAME_SUFFIXES = ['.localhost', '.internal', '.local', '.home.arpa'];
const INTERNAL_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export class AddressPolicy {
  private readonly allowedNames = new Set<string>();
  private readonly allowedRanges: Range[] = [];

  /**
   * @param allowInternal hosts, IPs or CIDR ranges exempt from the block (tests only).
   * @param lookup how names are resolved, for the check and for the connections it guards.
   */
  constructor(
    allowInternal: readonly string[] = [],
    private readonly lookup: NameLookup = nameLookup([]),
  ) {
    for (const entry of allowInternal) {
      const item = entry.toLowerCase().replace(/^\[|\]$/g, '');
      if (item.includes('/')) {
        this.allowedRanges.push(ipaddr.parseCIDR(item));
      } else if (ipaddr.isValid(item)) {
        const addr = ipaddr.parse(item);
        this.allowedRanges.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
      } else {
        this.allowedNames.add(item);
      }
    }
  }

  /** Throws url_invalid unless `raw` is an absolute http(s) URL; returns it parsed. */
  parseUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ServiceError('url_invalid', `unparsable URL: ${raw.slice(0, 200)}`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
      throw new ServiceError('url_invalid', `unsupported URL: ${raw.slice(0, 200)}`);
    }
    if (url.username || url.password) {
      throw new ServiceError('url_invalid', 'URLs with credentials are not fetched');
    }
    return url;
  }

  /**
   * True when the address is a public unicast address or explicitly allowed. An IPv6 address that
   * carries an IPv4 address (mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4) reaches that
   * IPv4 address, so it is judged as that address; other IPv6 addresses must be global unicast.
   */
  isAllowedAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.parse(address);
    const addr = parsed.kind() === 'ipv6' ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
    if (this.allowedRanges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return true;
    if (addr.range() !== 'unicast') return false;
    return addr.kind() === 'ipv4' || addr.match(GLOBAL_UNICAST);
  }

  /** Throws internal_address when the URL's host, as written, is internal. No DNS. */
  checkHostLiteral(url: URL): void {
    const host = url.hostname
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
    if (this.allowedNames.has(host)) return;
    if (ipaddr.isValid(host)) {
      if (!this.isAllowedAddress(host)) throw new ServiceError('internal_address', `address ${host} is internal`);
      return;
    }
    if (
      INTERNAL_NAMES.has(host) ||
      INTERNAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix)) ||
      !host.includes('.')
    ) {
      throw new ServiceError('internal_address', `host ${host} is internal`);
    }
  }

  /** Every address of a name, from the resolver this policy was given. */
  addressesOf(hostname: string): Promise<LookupAddress[]> {
    return this.lookup(hostname);
  }

  /** True when the host name is on the allowlist, so its addresses are not checked. */
  isAllowedName(hostname: string): boolean {
    return this.allowedNames.has(hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  /**
   * The full check: literal host, then every address the name resolves to. A name that does
   * not resolve is left for the fetch to report, since that is a fetch failure, not an attack.
   */
  async checkUrl(url: URL): Promise<void> {
    this.checkHostLiteral(url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host) || this.isAllowedName(host)) return;
    let addresses: { address: string }[];
    try {
      addresses = await this.lookup(host);
    } catch {
      return;
    }
    const blocked = addresses.find((entry) => !this.isAllowedAddress(entry.address));
    if (blocked) throw new ServiceError('internal_address', `host ${host} resolves to internal ${blocked.address}`);
  }
}

/** 2000::/3: every public IPv6 address lies in it; the rest of the space is reserved or special. */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
/** NAT64's well-known prefix (RFC 6052): its last 32 bits are the IPv4 address reached. */
const NAT64: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];

/**
 * The IPv4 address an IPv6 address is a form of. NAT64's local-use prefix (RFC 8215) and Teredo
 * are left out: where they lead depends on the local network, so they stay refused as special.
 */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = addr.parts;
  const lastTwo = (hi = 0, lo = 0) => ipaddr.fromByteArray([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]) as ipaddr.IPv4;
  const range = addr.range();
  // ::/96 (IPv4-compatible), ::ffff:0:0/96 (mapped), ::ffff:0:0:0/96 (translated), but not :: or ::1.
  const compatible = parts.slice(0, 5).every((part) => part === 0) && [0, 0xffff].includes(parts[5]!);
  if (compatible && range !== 'unspecified' && range !== 'loopback') return lastTwo(parts[6], parts[7]);
  if (parts.slice(0, 4).every((part) => part === 0) && parts[4] === 0xffff && parts[5] === 0)
    return lastTwo(parts[6], parts[7]);
  if (addr.match(NAT64)) return lastTwo(parts[6], parts[7]);
  if (range === '6to4') return lastTwo(parts[1], parts[2]);
  return undefined;
}
