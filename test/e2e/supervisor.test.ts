import { spawnChild } from '../../src/stack/children';
import { DEFAULT_RESTART_POLICY, restartDelay, Supervisor } from '../../src/stack/supervisor';
import { eventually } from '../support/eventually';

/**
 * The supervisor on real (tiny) processes: what it restarts, when, and when it stops trying.
 *
 * @stack own
 */

const quiet = { onLine: () => undefined };
const sleeper = () => spawnChild('sleeper', process.execPath, ['-e', 'setInterval(() => {}, 1000)'], quiet);
const crasher = () => spawnChild('crasher', process.execPath, ['-e', 'process.exit(3)'], quiet);

const alive = (pid: number | undefined): boolean => {
  try {
    return pid !== undefined && process.kill(pid, 0);
  } catch {
    return false;
  }
};

describe('restartDelay', () => {
  it('doubles from half a second and stops growing at 30 s', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => restartDelay(DEFAULT_RESTART_POLICY, n));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});

describe('Supervisor', () => {
  it('starts a killed child again, says so, and restarts nothing once stopped', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor({ log: (line) => lines.push(line), policy: { firstDelayMs: 50 } });
    const pids: number[] = [];
    await supervisor.add('sleeper', async () => {
      const child = sleeper();
      pids.push(child.process.pid!);
      return child;
    });
    process.kill(pids[0]!, 'SIGKILL');
    await eventually(() => pids.length === 2 && lines.length === 2, {
      what: 'the killed sleeper to be restarted and both lines logged',
      timeoutMs: 10_000,
    });
    expect(lines).toEqual([
      'sleeper was killed by SIGKILL; restarting it in 50 ms',
      `sleeper restarted (pid ${pids[1]})`,
    ]);
    await supervisor.stop();
    expect(alive(pids[1])).toBe(false);
    // Nothing to wait for: a restart that does not come has no event, so give one (50 ms away) time to show.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pids).toHaveLength(2);
  });

  it('waits longer after each crash in a row and gives up after the last allowed one', async () => {
    const lines: string[] = [];
    const givenUp: string[] = [];
    const supervisor = new Supervisor({
      log: (line) => lines.push(line),
      onGiveUp: (name) => givenUp.push(name),
      policy: { firstDelayMs: 20, maxQuickCrashes: 4 },
    });
    let starts = 0;
    await supervisor.add('crasher', async () => {
      starts++;
      return crasher();
    });
    await eventually(() => givenUp.length > 0, { what: 'the supervisor to give up on crasher', timeoutMs: 10_000 });
    expect(givenUp).toEqual(['crasher']);
    expect(starts).toBe(4);
    expect(lines).toEqual([
      'crasher exited with code 3; restarting it in 20 ms',
      expect.stringMatching(/^crasher restarted \(pid \d+\)$/),
      'crasher exited with code 3; restarting it in 40 ms',
      expect.stringMatching(/^crasher restarted/),
      'crasher exited with code 3; restarting it in 80 ms',
      expect.stringMatching(/^crasher restarted/),
      'crasher exited with code 3; giving up on it after 4 crashes in a row, each within 60 s of its start',
    ]);
    await supervisor.stop();
  });

  it('stops a child whose first start was under way when the stack was stopped', async () => {
    const supervisor = new Supervisor({ log: () => undefined });
    let child: ReturnType<typeof sleeper> | undefined;
    const adding = supervisor.add('slow starter', async () => {
      child = sleeper();
      // A start that is still under way when stop() comes is the case under test.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return child;
    });
    await supervisor.stop();
    await expect(adding).rejects.toThrow('the stack was stopped while slow starter was starting');
    expect(alive(child?.process.pid)).toBe(false);
  });

  it('counts a restart that fails to start as a crash', async () => {
    const lines: string[] = [];
    const supervisor = new Supervisor({
      log: (line) => lines.push(line),
      policy: { firstDelayMs: 20, maxQuickCrashes: 3 },
    });
    let starts = 0;
    const first = await supervisor.add('flaky', async () => {
      if (++starts > 1) throw new Error('port taken');
      return sleeper();
    });
    first.process.kill('SIGKILL');
    await eventually(() => lines.some((line) => line.includes('giving up')), {
      what: 'the supervisor to give up on flaky',
      timeoutMs: 10_000,
    });
    expect(lines).toEqual([
      'flaky was killed by SIGKILL; restarting it in 20 ms',
      'flaky failed to restart (port taken); restarting it in 40 ms',
      'flaky failed to restart (port taken); giving up on it after 3 crashes in a row, each within 60 s of its start',
    ]);
    await supervisor.stop();
  });
});
