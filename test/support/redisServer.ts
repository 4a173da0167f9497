import net from 'node:net';
import { spawnChild, waitUntil } from '../../src/stack/children';
import { freePort } from '../../src/stack/ports';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

/** A bare TCP connection: a client that keeps reconnecting would outlive a failed start. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true)).once('error', () => done(false));
  });
}

/** A Redis server of its own for a test, on a free loopback port, keeping nothing on disk. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const server = spawnChild(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { onLine: () => undefined },
  );
  await waitUntil('Redis to accept connections', server, () => accepts(port), 10_000);
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.stop() };
}
