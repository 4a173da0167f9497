import type { Coverage } from '../events/research';

export type StopReason = 'max_iterations' | 'coverage_sufficient';

/**
 * Whether research stops after this round, and why: coverage Solid or better is enough; so is an
 * evaluator that sees nothing more worth searching for; otherwise the rounds running out stops it.
 */
export function stopReasonAfter(
  iteration: number,
  maxIterations: number,
  evaluation: { coverage: Coverage; shouldContinue: boolean; nextQueries: string[] },
): StopReason | undefined {
  if (evaluation.coverage === 'Solid' || evaluation.coverage === 'Comprehensive') return 'coverage_sufficient';
  if (iteration >= maxIterations) return 'max_iterations';
  if (!evaluation.shouldContinue || evaluation.nextQueries.length === 0) return 'coverage_sufficient';
  return undefined;
}
