import { ERRORS, type ErrorCode } from '../errors';
import type { ResearchPayloads, ResearchPhase } from '../events/research';
import type { Evaluation, Plan, Verdict } from '../prompts/research.v1';
import { sampleOf, type AnalyzedPage } from './pages';
import type { StopReason } from './stopRule';

/**
 * Research's event payloads, built here and recorded by the workflow. Their messages are the
 * hosted service's where an event of its recorded streams has one ("Searching with 6 queries",
 * "Found 8 URLs"), so a client's timeline reads the same against either.
 */

const queries = (n: number): string => `${n} quer${n === 1 ? 'y' : 'ies'}`;

export const startData = (): ResearchPayloads['start'] => ({ message: 'Starting research' });

export function planningData(hasPrefetchedContext: boolean): ResearchPayloads['planning:start'] {
  return { message: 'Planning research strategy', hasPrefetchedContext };
}

export function plannedData(plan: Plan): ResearchPayloads['planning:end'] {
  return {
    message: `Planning complete: ${queries(plan.queries.length)}`,
    objective: plan.objective,
    plan: plan.plan,
    questions: plan.questions,
    queries: plan.queries,
    complexity: plan.complexity,
  };
}

export function iterationData(
  iteration: number,
  maxIterations: number,
  planned: string[],
): ResearchPayloads['iteration:start'] {
  return { message: `Starting iteration ${iteration} of ${maxIterations}`, iteration, maxIterations, queries: planned };
}

export function searchingData(iteration: number, planned: string[]): ResearchPayloads['searching:start'] {
  return { message: `Searching with ${queries(planned.length)}`, iteration, queries: planned };
}

/** `urlsNew` of `urlsFound` were not seen in an earlier round; the hosted line counts the found alone. */
export function foundData(iteration: number, urlsFound: number, urlsNew: number): ResearchPayloads['searching:end'] {
  return { message: `Found ${urlsFound} URL${urlsFound === 1 ? '' : 's'}`, iteration, urlsFound, urlsNew };
}

/** The end of a round's reading: how many of `targetCount` pages were analyzed, and a sample of each. */
export function analyzedData(
  iteration: number,
  read: AnalyzedPage[],
  targetCount: number,
): ResearchPayloads['analyzing:end'] {
  return {
    message: `Analyzed ${read.length} of ${targetCount} page(s)`,
    iteration,
    analyzed: read.length,
    failed: targetCount - read.length,
    samples: read.map(sampleOf),
  };
}

export function followedData(
  iteration: number,
  followed: AnalyzedPage[],
  targetCount: number,
): ResearchPayloads['following:end'] {
  return {
    message: `Followed ${followed.length} of ${targetCount} link(s)`,
    iteration,
    followed: followed.length,
    failed: targetCount - followed.length,
    samples: followed.map(sampleOf),
  };
}

/** `nextQueries` are the evaluation's own unless research stops here, then none. */
export function coverageData(
  iteration: number,
  evaluation: Evaluation,
  nextQueries: string[],
): ResearchPayloads['evaluating:end'] {
  return {
    message: `Coverage: ${evaluation.coverage}`,
    iteration,
    coverage: evaluation.coverage,
    gaps: evaluation.gaps,
    shouldContinue: evaluation.shouldContinue,
    questionAssessments: evaluation.assessments,
    nextQueries,
  };
}

/** The end of a `balanced` round: the last one says why research stops. */
export function roundEndData(
  iteration: number,
  evaluation: Evaluation,
  stopReason: StopReason | undefined,
): ResearchPayloads['iteration:end'] {
  if (!stopReason)
    return { message: `Iteration ${iteration} complete; searching again for the gaps`, iteration, isLast: false };
  return {
    message:
      stopReason === 'coverage_sufficient'
        ? `Iteration ${iteration} complete: coverage is ${evaluation.coverage}`
        : `Iteration ${iteration} complete (the last)`,
    iteration,
    isLast: true,
    stopReason,
  };
}

/** `fast` reads in one round, and says so as the hosted `fast` does. */
export function fastRoundEndData(iteration: number): ResearchPayloads['iteration:end'] {
  return {
    message: `Iteration ${iteration} complete (fast mode)`,
    iteration,
    isLast: true,
    stopReason: 'max_iterations',
  };
}

export function writingData(
  attempt: number,
  maxAttempts: number,
  previousScore?: number,
): ResearchPayloads['writing:start'] {
  const isRevision = previousScore !== undefined;
  return {
    message: isRevision ? `Revising report (attempt ${attempt} of ${maxAttempts})` : 'Writing report',
    attempt,
    maxAttempts,
    isRevision,
    ...(isRevision ? { previousScore } : {}),
  };
}

export function draftData(attempt: number): ResearchPayloads['writing:end'] {
  return { message: 'Report draft complete', attempt };
}

export function verdictData(attempt: number, verdict: Verdict): ResearchPayloads['judging:end'] {
  return {
    message: verdict.approved ? `Approved (score ${verdict.score})` : `Sent back (score ${verdict.score})`,
    attempt,
    approved: verdict.approved,
    score: verdict.score,
    ...(verdict.feedback ? { feedback: verdict.feedback } : {}),
  };
}

/** The spec's message for the code, never the cause; the phase and round it failed in, if any. */
export function failureData(code: ErrorCode, phase?: ResearchPhase, iteration?: number): ResearchPayloads['error'] {
  const { message } = ERRORS[code];
  return {
    message,
    error: { name: code, message },
    ...(phase ? { activity: phase } : {}),
    ...(iteration !== undefined ? { iteration } : {}),
  };
}
