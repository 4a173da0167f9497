import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/**
 * A worker process whose start fails says why: its own error, not one its cleanup ran into
 * afterwards. The real worker program against the stack's Temporal, with its metrics port taken.
 */

const MAIN = path.resolve(__dirname, '..', '..', 'dist/src/workers/main.js');

function holdPort(): Promise<net.Server> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

it('reports a metrics port that is taken, not the cleanup that followed', async () => {
  const held = await holdPort();
  const port = (held.address() as net.AddressInfo).port;
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(port),
    };
    const worker = spawn(process.execPath, [MAIN, 'workflow'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => worker.once('exit', resolve));
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: `configuration error: WORKER_METRICS_PORT: port ${port} is taken; give each worker process its own, or 0\n`,
    });
  } finally {
    await new Promise((resolve) => held.close(resolve));
  }
}, 60_000);
