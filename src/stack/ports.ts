import net from 'node:net';
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

/** A port the OS says is free right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
