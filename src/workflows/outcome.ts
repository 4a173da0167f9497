import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  patched,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { isErrorCode } from '../errors';
import { ERROR_CODE, OUTCOME, type Outcome } from '../temporal/searchAttributes';

/**
 * Runs that ended before workflows recorded their outcome have no such command in their
 * history; on replay, `patched` tells them apart.
 */
export const OUTCOME_PATCH = 'outcome-search-attributes';

/**
 * The code of a failure: the service's code it carries (src/errors.ts), as the API answers it;
 * else the workflow's own reason (`stream_abandoned`); else `internal`.
 */
function failureCode(err: unknown): string {
  for (let cause: unknown = err; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return cause.type;
  }
  return err instanceof ApplicationFailure && err.type ? err.type : 'internal';
}

function record(outcome: Outcome, errorCode?: string): void {
  if (!patched(OUTCOME_PATCH)) return;
  upsertSearchAttributes([
    { key: OUTCOME, value: outcome },
    ...(errorCode ? [{ key: ERROR_CODE, value: errorCode }] : []),
  ]);
}

/**
 * Runs a workflow's work and records how it ended in its search attributes (`outcome`, and
 * `errorCode` for a failure), so the Web UI finds failed runs by cause. A run that times out
 * or is terminated never gets here: Temporal's own `ExecutionStatus` tells those.
 */
export async function recordingOutcome<T>(work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) record('cancelled');
    else record('failed', failureCode(err));
    throw err;
  }
  record('completed');
  return result;
}
