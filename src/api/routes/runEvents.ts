import type { Middleware } from 'koa';
import { invalidField } from '../../errors';
import { INVALID_LAST_EVENT_ID, parseLastEventId } from '../../events/sse';
import type { ApiDeps } from '../deps';
import type { ApiState } from '../state';

/**
 * GET /runs/{runId}/events: a client that lost its stream reads it again, from after the id in
 * `Last-Event-ID` (from the start without one), then live. Runs of other organizations are 404.
 */
export function runEventsRoute(deps: ApiDeps): Middleware<ApiState> {
  return async (ctx) => {
    const after = parseLastEventId(ctx.get('last-event-id'));
    if (after === 'invalid') throw invalidField(INVALID_LAST_EVENT_ID);
    const { runId } = (ctx as unknown as { params: { runId: string } }).params;
    await deps.resumeRun(ctx, runId, after ?? 0);
  };
}
