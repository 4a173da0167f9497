import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config';
import { eventually } from '../support/eventually';

/**
 * On a machine that runs every role, page work yields the CPU to workflow tasks and the relay of
 * events: each thread of a worker process that runs page roles only (its conversion threads and
 * the SDK's runtime threads among them) has PAGE_WORKER_NICE, every other worker's thread 0.
 */

/** The nice value of each thread of a process (field 19 of its stat; the name may hold spaces). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

/** A worker process's roles from its name: `worker fetch,browser` here, `worker-fetch-1` on the cluster. */
function rolesOf(name: string): string[] {
  const cluster = /^worker-(\w+)-\d+$/.exec(name);
  return cluster ? [cluster[1]!] : name.slice('worker '.length).split(',');
}

it('runs page workers at the configured nice value and the rest at the default', async () => {
  const pageNice = loadConfig({
    ...process.env,
    ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
  }).workers.pageWorkerNice;
  expect(pageNice).toBe(5);
  const workers = Object.entries(JSON.parse(process.env.TEST_PIDS ?? '{}') as Record<string, number>)
    .filter(([name]) => name.startsWith('worker'))
    .map(([name, pid]) => {
      const pageOnly = rolesOf(name).every((role) => role === 'fetch' || role === 'browser');
      return { name, pid, expected: [pageOnly ? pageNice : 0] };
    });
  expect(workers.filter(({ expected }) => expected[0] === pageNice)).not.toHaveLength(0);
  const seen = () => workers.map(({ name, pid }) => ({ name, nices: [...new Set(threadNices(pid))] }));
  const wanted = workers.map(({ name, expected }) => ({ name, nices: expected }));
  // The stack's setup waits for the API, not for every worker to have started its roles.
  await eventually(() => JSON.stringify(seen()) === JSON.stringify(wanted), {
    what: 'every worker process to have started',
    timeoutMs: 60_000,
  }).catch(() => undefined);
  expect(seen()).toEqual(wanted);
}, 90_000);
