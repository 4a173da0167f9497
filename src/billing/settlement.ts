import { ApplicationFailure, TemporalFailure, WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ERRORS, isErrorCode } from '../errors';

/**
 * Whether a run's charge is given back: yes when it failed through our fault, no when it
 * succeeded or failed through its caller's. The table (README, Credits):
 * - completed: kept;
 * - cancelled, or failed as `stream_abandoned` (the caller left its stream, or cancelled): kept;
 * - failed with a caller's error (a status below 500: a bad URL, an internal address...): kept;
 * - failed to fetch a page that answered 4xx (not there, forbidden): kept; the page is the caller's;
 * - failed with `page_too_large` (or Extract Markdown's `page_too_large_to_convert`): kept; the page
 *   is the caller's;
 * - failed to fetch otherwise (network, time-out, a 5xx), or with any other 5xx code (conversion,
 *   model, search, internal): refunded;
 * - timed out or terminated: refunded;
 * - never started (no run by that id past its deadline): refunded.
 */

export type RunSettlement =
  | { state: 'running' }
  /** No run by this id (yet): it may still be starting, through a Temporal outage. */
  | { state: 'missing' }
  | { state: 'ended'; refund: boolean; note: string };

/** The status of the page a failed fetch got, carried in the activity failure's details. */
function pageStatus(err: unknown): number | undefined {
  for (let cause: unknown = err; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure) {
      const details = cause.details?.[0] as { httpStatus?: unknown } | undefined;
      if (typeof details?.httpStatus === 'number') return details.httpStatus;
    }
  }
  return undefined;
}

/** The service's code of a failure, else the workflow's own reason (`stream_abandoned`), else `internal`. */
function failureCode(err: unknown): string {
  let reason: string | undefined;
  for (let cause: unknown = err; cause instanceof TemporalFailure; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) return cause.type;
    if (cause instanceof ApplicationFailure && cause.type) reason ??= cause.type;
  }
  return reason ?? 'internal';
}

/** A workflow's own reasons to fail that are its caller's doing. */
const CALLER_REASONS: ReadonlySet<string> = new Set(['stream_abandoned']);

/** A page too large to read within the bounds: the caller chose it, whatever the operation says. */
const PAGES_TOO_LARGE: ReadonlySet<string> = new Set(['page_too_large', 'page_too_large_to_convert']);

/** The settlement of a run that failed with `err`. */
export function failedRunSettlement(err: unknown): { refund: boolean; note: string } {
  const code = failureCode(err instanceof WorkflowFailedError ? err.cause : err);
  const status = pageStatus(err);
  if (code === 'fetch_failed' && status !== undefined && status >= 400 && status < 500)
    return { refund: false, note: `failed: the page answered ${status}` };
  const callers = isErrorCode(code) ? PAGES_TOO_LARGE.has(code) || ERRORS[code].status < 500 : CALLER_REASONS.has(code);
  if (callers) return { refund: false, note: `failed: ${code}` };
  return { refund: true, note: `refunded: ${code}` };
}

/** How a run stands, read from Temporal. */
export async function runSettlement(client: Client, workflowId: string): Promise<RunSettlement> {
  const handle = client.workflow.getHandle(workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { state: 'missing' };
    throw err;
  }
  switch (status) {
    case 'RUNNING':
    case 'CONTINUED_AS_NEW':
      return { state: 'running' };
    case 'COMPLETED':
      return { state: 'ended', refund: false, note: 'completed' };
    case 'CANCELLED':
      return { state: 'ended', refund: false, note: 'cancelled' };
    case 'FAILED':
      try {
        await handle.result();
        return { state: 'ended', refund: false, note: 'completed' };
      } catch (err) {
        return { state: 'ended', ...failedRunSettlement(err) };
      }
    default:
      // TIMED_OUT, TERMINATED: the run never finished its work.
      return { state: 'ended', refund: true, note: `refunded: ${status.toLowerCase()}` };
  }
}
