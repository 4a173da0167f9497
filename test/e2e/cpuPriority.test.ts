import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config';
import { eventually } from '../support/eventually';

/**
 * On a machine that runs every role, page work yields the CPU to workflow tasks and the relay of
 * events: each thread of a worker process that runs page roles only (its conversion threads and
 * the SDK's runtime threads among them) has PAGE_WORKER_NICE, every other worker's thread 0.
 */

interface WorkerProcess {
  pid: number;
  roles: string[];
}

/** A process's NUL-separated /proc file as its parts; none once the process is gone. */
function procParts(pid: string, file: 'cmdline' | 'environ'): string[] {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * The worker processes of this run's stack as they are now (a test before may have killed one,
 * which came back under another id): those serving its Temporal, with their roles from their
 * arguments (`npm start`'s `main.js fetch,browser`) or WORKER_ROLES (the cluster's).
 */
function stackWorkers(): WorkerProcess[] {
  const address = `TEMPORAL_ADDRESS=${process.env.TEST_TEMPORAL_ADDRESS}`;
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      const args = procParts(pid, 'cmdline');
      const main = args.findIndex((arg) => arg.endsWith('workers/main.js'));
      const env = procParts(pid, 'environ');
      if (main < 0 || !env.includes(address)) return [];
      const roles =
        args[main + 1] || env.find((entry) => entry.startsWith('WORKER_ROLES='))?.slice('WORKER_ROLES='.length);
      return roles ? [{ pid: Number(pid), roles: roles.split(',') }] : [];
    });
}

/** The nice values of a process's threads (field 19 of each stat; the name may hold spaces). */
function threadNices(pid: number): number[] {
  try {
    const nices = readdirSync(`/proc/${pid}/task`).map((thread) => {
      const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    return [...new Set(nices)];
  } catch {
    return [];
  }
}

it('runs page workers at the configured nice value and the rest at the default', async () => {
  const pageNice = loadConfig({
    ...process.env,
    ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
  }).workers.pageWorkerNice;
  expect(pageNice).toBe(5);
  const expected = (roles: string[]) => (roles.every((role) => role === 'fetch' || role === 'browser') ? pageNice : 0);
  const seen = () =>
    stackWorkers()
      .map(({ pid, roles }) => ({ roles: roles.join(','), nices: threadNices(pid), expected: [expected(roles)] }))
      .sort((a, b) => a.roles.localeCompare(b.roles));
  // The stack's setup waits for the API, not for every worker to have started its roles.
  await eventually(() => seen().every(({ nices, expected }) => nices.join() === expected.join()), {
    what: 'every worker process to have started',
    timeoutMs: 60_000,
  }).catch(() => undefined);
  const workers = seen();
  expect(workers.filter(({ expected }) => expected[0] === pageNice)).not.toHaveLength(0);
  expect(workers.filter(({ expected }) => expected[0] === 0)).not.toHaveLength(0);
  expect(workers.map(({ roles, nices }) => ({ roles, nices }))).toEqual(
    workers.map(({ roles, expected }) => ({ roles, nices: expected })),
  );
}, 90_000);
