import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureServer } from './fixtureServer';
import { FIXTURE_HOST } from './localStack';
import { eventually } from './eventually';

/**
 * CI's check of `npm run start:cluster` as the README writes it, with no port or key of ours:
 * it starts the cluster, waits for its banner, asks each API replica it prints for the Markdown
 * of a page on loopback with the key it prints, then kills the launcher with SIGKILL and checks
 * that every process of the cluster goes with it. The one setting it adds lets the APIs fetch
 * that loopback page (ALLOW_INTERNAL_HOSTS).
 */

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** A first start sets up PostgreSQL and Temporal's schema, and bundles the workflow code twice. */
const UP_WITHIN_MS = 10 * 60_000;
/** Each service's graceful stop, PostgreSQL's included, on a loaded machine. */
const GONE_WITHIN_MS = 60_000;
const TITLE = 'Cluster smoke page';

/** Every process alive, with its parent; a zombie has ended. */
async function processTree(): Promise<Map<number, number>> {
  const tree = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const match = /^\d+ \(.*\) (\S) (\d+)/s.exec(stat);
    if (match && match[1] !== 'Z') tree.set(Number(entry), Number(match[2]));
  }
  return tree;
}

async function descendants(pid: number): Promise<number[]> {
  const tree = await processTree();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of tree)
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
  }
  return found;
}

async function main(): Promise<void> {
  const page = await startFixtureServer({
    '/page': (_, res) =>
      res.writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><head><title>${TITLE}</title></head><body><article><h1>${TITLE}</h1>
<p>${'Served on loopback to each API replica of the cluster, one request each. '.repeat(4)}</p></article></body></html>`),
  });
  const launcher = spawn('npm', ['run', 'start:cluster'], {
    cwd: ROOT,
    env: { ...process.env, ALLOW_INTERNAL_HOSTS: FIXTURE_HOST },
    // Its own process group, so that whatever a failed check leaves is killed at the end.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [launcher.stdout, launcher.stderr])
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
  try {
    await eventually(
      () => {
        if (launcher.exitCode !== null) throw new Error(`npm run start:cluster exited with code ${launcher.exitCode}`);
        return output.includes('webloom cluster is running');
      },
      { what: 'the cluster to be up', timeoutMs: UP_WITHIN_MS, intervalMs: 500 },
    );
    const banner = output.slice(output.indexOf('webloom cluster is running'));
    const apis = [...banner.matchAll(/API base URL +(\S+)/g)].map((match) => match[1]!);
    const key = /API key +(\S+)/.exec(banner)?.[1];
    if (apis.length < 2 || !key) throw new Error(`the banner names no API replicas or key:\n${banner}`);
    for (const api of apis) {
      const response = await fetch(`${api}/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: page.url('/page'), effort: 'min' }),
      });
      const body = await response.text();
      if (response.status !== 200 || !body.includes(TITLE))
        throw new Error(`${api}: Extract Markdown answered ${response.status}: ${body.slice(0, 500)}`);
      console.log(`[smoke] ${api}: Extract Markdown answered 200 with the page`);
    }
    const cluster = await descendants(launcher.pid!);
    const killedAt = Date.now();
    launcher.kill('SIGKILL');
    await eventually(
      async () => {
        const tree = await processTree();
        const left = cluster.filter((pid) => tree.has(pid));
        if (left.length > 0) throw new Error(`${left.length} of the cluster's ${cluster.length} processes are left`);
        return true;
      },
      {
        what: "the cluster's processes to be gone after the launcher was killed",
        timeoutMs: GONE_WITHIN_MS,
        intervalMs: 200,
      },
    );
    console.log(`[smoke] launcher killed: all ${cluster.length} processes gone after ${Date.now() - killedAt} ms`);
  } finally {
    try {
      process.kill(-launcher.pid!, 'SIGKILL');
    } catch {
      // The group has gone.
    }
    await page.close();
  }
}

main().catch((err: unknown) => {
  console.error(`[smoke] ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
