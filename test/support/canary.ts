import dgram from 'node:dgram';
import net from 'node:net';
import { freePort } from '../../src/stack/ports';

/**
 * Listeners on loopback, TCP and UDP, IPv4 and IPv6, on one port, that record whatever arrives:
 * tests aim every refused address at this port, so a request the address policy let through
 * shows here even when the answer looked like a refusal.
 */
export interface Canary {
  port: number;
  /** What arrived so far, as `tcp 127.0.0.1` or `udp ::1`. */
  arrivals(): string[];
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  const port = await freePort();
  const arrived: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  for (const host of ['127.0.0.1', '::1']) {
    const server = net.createServer((socket) => {
      arrived.push(`tcp ${host}`);
      socket.destroy();
    });
    const udp = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    udp.on('message', () => arrived.push(`udp ${host}`));
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
      await new Promise<void>((resolve, reject) => udp.once('error', reject).bind(port, host, resolve));
    } catch (err) {
      // A machine without IPv6 on loopback cannot be reached there either.
      if (host === '::1' && (err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') continue;
      throw err;
    }
    closers.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => new Promise<void>((resolve) => udp.close(() => resolve())),
    );
  }
  return {
    port,
    arrivals: () => [...arrived],
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
