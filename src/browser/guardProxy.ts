import { randomUUID } from 'node:crypto';
import type { LookupOptions } from 'node:dns';
import { RequestError, Server } from 'proxy-chain';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import { guardedLookup, isBlockedError, type LookupCallback } from '../net/httpFetch';

/**
 * A forward proxy on loopback that every browser context sends all its traffic through. It
 * applies the address policy to each connection the page makes, redirect hops included, at
 * connect time; Chromium cannot be told to do that itself. Each render is a session, named by
 * the proxy user name its context presents, so a blocked attempt is charged to the right render.
 */

/** Where the proxy listens: the one address the browser connects to. */
export const GUARD_PROXY_HOST = '127.0.0.1';

export interface ProxySession {
  /** Proxy settings for the browser context of this render. */
  proxy: { server: string; username: string; password: string; bypass: string };
  /** Internal addresses the page tried to reach. */
  blocked: string[];
  end(): void;
}

interface SessionState {
  blocked: string[];
  upstreamProxyUrl?: string;
}

export class GuardProxy {
  private readonly sessions = new Map<string, SessionState>();
  private server: Server | undefined;
  private port = 0;

  constructor(private readonly policy: AddressPolicy) {}

  private async ensureStarted(): Promise<void> {
    if (this.server) return;
    const lookup = guardedLookup(this.policy);
    const server = new Server({
      port: 0,
      host: GUARD_PROXY_HOST,
      prepareRequestFunction: async ({ username, hostname, port }) => {
        const session = this.sessions.get(username);
        if (!session) return { requestAuthentication: true, failMsg: 'unknown render session' };
        // proxy-chain takes the host from a parsed URL, so an IPv6 literal already comes bracketed (`[::1]`).
        const target = new URL(`http://${hostname}:${port}/`);
        try {
          // Through an upstream proxy the name is resolved there, so it is resolved and checked here first.
          if (session.upstreamProxyUrl) await this.policy.checkUrl(target);
          else this.policy.checkHostLiteral(target);
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'internal_address') {
            session.blocked.push(hostname);
            throw new RequestError('access to internal resources is not allowed', 403);
          }
          throw err;
        }
        if (session.upstreamProxyUrl) return { upstreamProxyUrl: session.upstreamProxyUrl };
        return {
          dnsLookup: ((host: string, options: LookupOptions, callback: LookupCallback) =>
            lookup(host, options, (err, address, family) => {
              if (err && isBlockedError(err)) session.blocked.push(host);
              callback(err, address, family);
            })) as never,
        };
      },
    });
    await server.listen();
    this.server = server;
    this.port = server.port;
  }

  /** @param upstreamProxyUrl the operator's proxy to chain to (geotargeting), if any. */
  async session(upstreamProxyUrl?: string): Promise<ProxySession> {
    await this.ensureStarted();
    const username = randomUUID();
    const state: SessionState = { blocked: [], upstreamProxyUrl };
    this.sessions.set(username, state);
    return {
      // `<-loopback>` undoes Chromium's built-in rule that sends loopback traffic around any proxy.
      proxy: { server: `http://${GUARD_PROXY_HOST}:${this.port}`, username, password: 'render', bypass: '<-loopback>' },
      blocked: state.blocked,
      end: () => this.sessions.delete(username),
    };
  }

  async close(): Promise<void> {
    await this.server?.close(true);
    this.server = undefined;
  }
}
