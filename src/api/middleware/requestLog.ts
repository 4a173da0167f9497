import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../telemetry/logger';
import type { ApiState } from '../state';

const CODEC_ACTIONS = new Set(['decode', 'encode']);
/** Escapes a client stacked (`%252F`) are undone this many times over, so each form reads alike. */
const UNESCAPE_ROUNDS = 3;

function unescaped(path: string): string {
  let text = path;
  for (let round = 0; round < UNESCAPE_ROUNDS && text.includes('%'); round++)
    text = text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return text;
}

/**
 * The codec's secret path segment (see codecAuth), whether right or wrong, never reaches the log.
 * The router matches `/codec` in any case and beside empty segments, and a client may escape any
 * of it, so a path that reads as `/codec/...` in any of those forms is logged as its shape alone.
 */
function loggedPath(path: string): string {
  const segments = unescaped(path)
    .toLowerCase()
    .split(/[/\\]+/)
    .filter(Boolean);
  if (segments[0] !== 'codec') return path;
  const rest = segments.slice(1);
  const action = CODEC_ACTIONS.has(rest.at(-1) ?? '') ? rest.at(-1) : undefined;
  const secretSegments = rest.length - (action ? 1 : 0);
  return `/codec${secretSegments > 0 ? '/:secret' : ''}${action ? `/${action}` : ''}`;
}

/**
 * One log line per request with its id, and the organization, workflow id and run id once known
 * (see `identify`), so a request in the log leads straight to its run in the Temporal UI.
 * Headers are never logged: they carry keys.
 *
 * Every answer also carries `x-trace-id`, the id the official clients show for a support request
 * (the Go CLI's `--debug`): the Temporal run id of the request's run, which Automate's
 * `task:trace_context` event carries too; an answer given before any run started (a refused key
 * or body) has no run, and gets the request id instead. Either one is on the request's log line.
 */
export function requestLog(logger: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    try {
      await next();
    } finally {
      // An event stream's headers go out when Koa answers, after this: the run is known by then.
      if (!ctx.headerSent) ctx.set('x-trace-id', ctx.state.runId ?? requestId);
      const entry = {
        method: ctx.method,
        path: loggedPath(ctx.path),
        status: ctx.status,
        ms: Math.round(performance.now() - started),
        error: ctx.state.errorDetail,
      };
      if (ctx.status >= 500) ctx.state.log.error(entry, 'request failed');
      else ctx.state.log.info(entry, 'request');
    }
  };
}
