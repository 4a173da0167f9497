import dns from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';

/** Every address a host name has, as the policy judges them and connections then use them. */
export type NameLookup = (hostname: string) => Promise<LookupAddress[]>;

/** How long one question to a configured name server may take, and how often it is asked. */
const QUERY_TIMEOUT_MS = 3_000;
const QUERY_TRIES = 2;

/**
 * The system's resolver, or with `servers` the named DNS servers alone (an operator's filtering
 * resolver; the address-policy tests' own server). Either way the answer a check judged is the
 * answer the connection uses: callers never look a name up twice for one connection.
 */
export function nameLookup(servers: readonly string[]): NameLookup {
  if (servers.length === 0) return (hostname) => dns.lookup(hostname, { all: true, verbatim: true });
  const resolver = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  resolver.setServers(servers);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    const failure = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException) : undefined;
    // As dns.lookup reports a name without addresses, so callers see one code either way.
    throw Object.assign(new Error(`no address for ${hostname}: ${failure?.code ?? 'ENODATA'}`), {
      code: 'ENOTFOUND',
      hostname,
    });
  };
}
