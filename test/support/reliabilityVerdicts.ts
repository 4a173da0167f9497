import { recordReliability, type ReliabilityRow } from './reliabilityRecord';

/**
 * How a test's verdict becomes a row of docs/reliability.md: recorded whether its expectations
 * hold or not, so that a failing run shows in the report as rows not as required, not as rows
 * missing.
 */

/**
 * Runs `expectations` and records `row` with their verdict; a failure is rethrown after. A row
 * given as a function is made once the expectations end, so it can tell how far they got.
 */
export async function judged(
  suite: string,
  row: Omit<ReliabilityRow, 'ok'> | (() => Omit<ReliabilityRow, 'ok'>),
  expectations: () => unknown,
): Promise<void> {
  let ok = false;
  try {
    await expectations();
    ok = true;
  } finally {
    recordReliability(suite, [{ ...(typeof row === 'function' ? row() : row), ok }]);
  }
}

/**
 * Runs one fuzz property and records, whether it holds or not, how many inputs it tried and how
 * they were answered. `run` calls `count` with each answer's kind
 * (`read`, `400`, `413 unlisted`...); when the property fails, fast-check's shrinking tries more
 * inputs and those count too.
 */
export async function tallied(
  suite: string,
  row: { fault: string; target: string; seed: number; runs: number },
  run: (count: (answer: string) => void) => unknown,
): Promise<void> {
  const answers = new Map<string, number>();
  const count = (answer: string) => answers.set(answer, (answers.get(answer) ?? 0) + 1);
  let ok = false;
  try {
    await run(count);
    ok = true;
  } finally {
    const sorted = [...answers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const tried = sorted.reduce((sum, [, n]) => sum + n, 0);
    recordReliability(suite, [
      {
        fault: row.fault,
        target: row.target,
        outcome: sorted.map(([answer, n]) => `${answer} ${n}`).join(', ') || 'nothing tried',
        ok,
        figures: { tried, seed: row.seed, runs: row.runs },
      },
    ]);
  }
}
