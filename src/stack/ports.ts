import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { ConfigError } from '../config';

/**
 * A port a stack was told to use is held by a process the stack did not start, most likely one
 * of an earlier stack that outlived its launcher. Taking it over would make that process part of
 * this stack (a probe that asks the port cannot tell whose answer it gets), so the start refuses.
 */
export class PortTakenError extends ConfigError {
  constructor(setting: string, port: number, what: string) {
    super(
      setting,
      `port ${port} (${what}) is taken by a process this start does not own, perhaps one of a stack ` +
        `that is still running; stop that process, or set ${setting} to another port`,
    );
    this.name = 'PortTakenError';
  }
}

export function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export interface WantedPort {
  /** 0 is any free port, never taken. */
  port: number;
  host: string;
  /** The setting that chose it. */
  setting: string;
  what: string;
}

/** Throws PortTakenError for the first of `ports` some other process listens on. */
export async function refuseTakenPorts(ports: WantedPort[]): Promise<void> {
  for (const { port, host, setting, what } of ports)
    if (port !== 0 && !(await canListen(host, port))) throw new PortTakenError(setting, port, what);
}

/**
 * A port free right now, and kept from the OS's own picks for a minute: Linux hands a port just
 * closed to the next listen or connect on port 0 within a few hundred picks (68 repeats in 1,000
 * calls), so a port chosen for a process not yet started could be another's by the time it binds.
 * A connection to it that this side closes first leaves the port in TIME_WAIT, which the kernel
 * skips when it picks; an explicit listen (SO_REUSEADDR, as Node, Go, Redis and PostgreSQL set)
 * takes it at once. Temporal's dev server reserves its ports the same way.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const client = net.connect(port, connectableHost(host));
  client.on('error', () => undefined);
  try {
    await once(client, 'close');
  } catch {
    // No connection, so no TIME_WAIT: the port is free all the same, only not kept.
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return port;
}

/** The address a connection to a server listening on `host` goes to: any address is this machine. */
function connectableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}
