import { ERRORS, type ErrorCode } from '../errors';
import type { ResearchPayloads, ResearchPhase } from '../events/research';
import type { Evaluation, Plan, Verdict } from '../prompts/research.v1';
import { sampleOf, type AnalyzedPage } from './pages';
import type { StopReason } from './stopRule';

/** Research's event payloads that say more than a count: built here, recorded by the workflow. */

export function plannedData(plan: Plan): ResearchPayloads['planning:end'] {
  return {
    message: `Planned ${plan.questions.length} question(s) and ${plan.queries.length} search(es)`,
    objective: plan.objective,
    plan: plan.plan,
    questions: plan.questions,
    queries: plan.queries,
    complexity: plan.complexity,
  };
}

export function searchingData(iteration: number, queries: string[]): ResearchPayloads['searching:start'] {
  return {
    message: `Searching the web for ${queries.length} quer${queries.length === 1 ? 'y' : 'ies'}`,
    iteration,
    queries,
  };
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
    return { message: `Round ${iteration} done; searching again for the gaps`, iteration, isLast: false };
  return {
    message:
      stopReason === 'coverage_sufficient'
        ? `Coverage is ${evaluation.coverage}: research stops`
        : 'The last round is done',
    iteration,
    isLast: true,
    stopReason,
  };
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
