import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_HOST } from './localStack';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FixtureServer {
  url(path: string): string;
  port: number;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Listens on a free port of `host`; the server's origin. */
export async function listen(server: http.Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/** Closes servers at once, their open connections too. */
export async function closeServers(servers: http.Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

/** A real HTTP server on loopback serving test pages by path. */
export async function startFixtureServer(routes: Record<string, Handler>, host = FIXTURE_HOST): Promise<FixtureServer> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes[path];
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
  });
  const origin = await listen(server, host);
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    url: (path) => `${origin}${path}`,
    close: () => closeServers([server]),
  };
}

export function html(body: string | Buffer, contentType = 'text/html; charset=utf-8', status = 200): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };
}

export function redirect(location: string, status = 301): Handler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}
