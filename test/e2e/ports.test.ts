import net, { type AddressInfo } from 'node:net';
import { canListen, freePort, refuseTakenPorts } from '../../src/stack/ports';

/**
 * The ports a stack is given before its processes start, on this machine's real sockets.
 *
 * @stack own
 */

const CALLS = 1000;

async function listenOn(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

describe('freePort', () => {
  it('gives no port twice in a thousand calls, though each is closed before the next', async () => {
    const ports: number[] = [];
    for (let i = 0; i < CALLS; i++) ports.push(await freePort());
    expect(ports.length - new Set(ports).size).toBe(0);
  });

  it('keeps the ports it gave from the picks of port 0 by anyone else', async () => {
    const given = new Set<number>();
    for (let i = 0; i < 50; i++) given.add(await freePort());
    const picked: number[] = [];
    for (let i = 0; i < 2 * CALLS; i++) {
      const server = await listenOn(0);
      picked.push((server.address() as AddressInfo).port);
      await new Promise((resolve) => server.close(resolve));
    }
    expect(picked.filter((port) => given.has(port))).toEqual([]);
  });

  it('gives a port a server can listen on at once', async () => {
    const port = await freePort();
    const server = await listenOn(port);
    expect((server.address() as AddressInfo).port).toBe(port);
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('refuseTakenPorts', () => {
  it('names the setting of a port another process listens on, and passes a free one and 0', async () => {
    const taken = await listenOn(0);
    const port = (taken.address() as AddressInfo).port;
    try {
      expect(await canListen('127.0.0.1', port)).toBe(false);
      await expect(
        refuseTakenPorts([
          { port: await freePort(), host: '127.0.0.1', setting: 'TEMPORAL_PORT', what: 'Temporal' },
          { port: 0, host: '127.0.0.1', setting: 'WORKER_METRICS_PORT', what: 'metrics' },
          { port, host: '127.0.0.1', setting: 'PORT', what: 'the API' },
        ]),
      ).rejects.toThrow(`PORT: port ${port} (the API) is taken by a process this start does not own`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
