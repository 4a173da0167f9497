import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, ProxyAgent, Socks5ProxyAgent, fetch, type Dispatcher } from 'undici';
import { ServiceError } from '../errors';
import type { AddressPolicy } from './addressPolicy';

/**
 * A plain HTTP GET that cannot be steered into the service's own network: the address
 * policy runs on the URL of every redirect hop and on every address DNS returns, at
 * connect time, so a name that changes its answer between check and use is still caught.
 */

export interface HttpFetchOptions {
  /** Through an upstream proxy, which resolves names itself: each hop's name is checked here first. */
  viaProxy?: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  signal?: AbortSignal;
}

export interface HttpResponse {
  finalUrl: string;
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body stopped at maxBytes. */
  truncated: boolean;
}

type UndiciResponse = Awaited<ReturnType<typeof fetch>>;

const BLOCKED_CODE = 'E_INTERNAL_ADDRESS';

export type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `dns.lookup` replacement that refuses internal addresses. Used wherever a connection is
 * opened for a page (undici here, the browser's proxy), so the check happens at connect time.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    policy.addressesOf(hostname).then(
      (found) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses = family ? found.filter((a) => a.family === family) : found;
        const blocked = policy.isAllowedName(hostname)
          ? undefined
          : addresses.find((a) => !policy.isAllowedAddress(a.address));
        if (blocked) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to internal address ${blocked.address}`);
          error.code = BLOCKED_CODE;
          return callback(error, []);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0];
        if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/** A connection pool through an operator's proxy (geotargeting); http(s) or socks5. */
export function createProxyAgent(proxyUrl: string): Dispatcher {
  return /^socks/i.test(proxyUrl) ? new Socks5ProxyAgent(proxyUrl) : new ProxyAgent(proxyUrl);
}

/** One connection pool per policy; its DNS lookup refuses internal addresses. */
export function createGuardedAgent(policy: AddressPolicy): Agent {
  return new Agent({ connect: { lookup: guardedLookup(policy) }, keepAliveTimeout: 4_000, connections: 64 });
}

export function isBlockedError(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if ((e as NodeJS.ErrnoException).code === BLOCKED_CODE) return true;
  }
  return false;
}

function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    parts.push(`${(e as NodeJS.ErrnoException).code ?? e.name}: ${e.message}`);
  }
  return parts.join(' <- ') || String(err);
}

export async function httpFetch(
  rawUrl: string,
  policy: AddressPolicy,
  agent: Dispatcher,
  options: HttpFetchOptions,
): Promise<HttpResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = policy.parseUrl(rawUrl);
  for (let hop = 0; ; hop++) {
    if (options.viaProxy) await policy.checkUrl(url);
    else policy.checkHostLiteral(url);
    let response: UndiciResponse;
    try {
      response = await fetch(url, {
        dispatcher: agent,
        redirect: 'manual',
        signal,
        headers: {
          'user-agent': options.userAgent,
          accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.9,*/*;q=0.8',
          'accept-language': 'en-US,en;q=0.9',
        },
      });
    } catch (err) {
      if (isBlockedError(err)) throw new ServiceError('internal_address', describe(err));
      throw new ServiceError('fetch_failed', `${url.href}: ${describe(err)}`);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= options.maxRedirects) throw new ServiceError('fetch_failed', `too many redirects from ${rawUrl}`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ServiceError('fetch_failed', `bad redirect location ${location.slice(0, 200)}`);
      }
      url = policy.parseUrl(next.href);
      continue;
    }
    const { body, truncated } = await readBounded(response, options.maxBytes).catch((err: unknown) => {
      throw new ServiceError('fetch_failed', `${url.href}: reading body: ${describe(err)}`);
    });
    return { finalUrl: url.href, status: response.status, headers: response.headers, body, truncated };
  }
}

async function readBounded(response: UndiciResponse, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (!response.body) return { body: Buffer.alloc(0), truncated: false };
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks, size), truncated: false };
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(Buffer.from(value.buffer, value.byteOffset, room));
      await reader.cancel();
      return { body: Buffer.concat(chunks, maxBytes), truncated: true };
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
}
