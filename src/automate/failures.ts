import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { MODEL_FAILED } from '../errors';
import type { UnusableAnswer } from '../model/structuredAsk';
import { SESSION_LOST, SESSIONS_FULL, STEP_FAILED } from '../operations/automate';

/** The activity's own failure, when `err` is one an activity failed with. */
function activityCause(err: unknown): ApplicationFailure | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : undefined;
}

/** The session's worker is gone (or restarted, or reaped the session): a new session is needed. */
export function sessionLost(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  return err.cause instanceof TimeoutFailure || activityCause(err)?.type === SESSION_LOST;
}

/** Every browser session is in use: asking again later may get one. */
export function sessionsFull(err: unknown): boolean {
  return activityCause(err)?.type === SESSIONS_FULL;
}

/** Why the page made a session step impossible, when that is why it failed: the task goes on. */
export function stepFailure(err: unknown): string | undefined {
  const cause = activityCause(err);
  return cause?.type === STEP_FAILED ? cause.message : undefined;
}

/** The model's answer and why it did not fit, when a model call failed for that. */
export function unusableAnswer(err: unknown): UnusableAnswer | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const details = cause.details?.[0] as UnusableAnswer | undefined;
  return details && Array.isArray(details.errors) ? details : undefined;
}

/**
 * What an event says of a failed model call: fixed words by kind, never the model client's own
 * text (addresses, status lines, a provider's message).
 */
export function modelFailureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (unusableAnswer(err)) return "the model's answer did not have the expected shape";
  if (cause instanceof TimeoutFailure) return 'the model did not answer in time';
  if (cause instanceof ApplicationFailure && cause.type === MODEL_FAILED) return 'the model refused the request';
  return 'the model could not be reached';
}
