import { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FormDataRequest } from '../../events/automate';
import type { RecordedEvent } from '../../events/messages';
import type { CitedPage } from '../../events/research';
import type { ApiDeps } from '../deps';
import type { FollowedRun } from '../events/streamedRuns';
import { toServiceError } from '../middleware/errorResponses';
import { requestRateLimit } from '../middleware/rateLimit';
import { automateInputRoute } from '../routes/automate';
import type { ApiState } from '../state';
import { elicitation, fieldValues } from './formElicitation';
import type { OperationTool } from './tools';

export type ApiContext = Context & { state: ApiState };
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The Koa context a route serves one tool call in: the caller and log of the HTTP request that
 * carried the call, the arguments as the body, and an answer of its own that goes nowhere, so
 * what the route sets on it never mixes into the MCP stream's response.
 */
function callContext(post: ApiContext, body: Record<string, unknown>): ApiContext {
  const ctx = post.app.createContext(post.req, new ServerResponse(post.req)) as ApiContext;
  ctx.state = { requestId: post.state.requestId, log: post.state.log, organization: post.state.organization, body };
  return ctx;
}

function toolError(message: string, status: number, reason?: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: reason === undefined ? message : `${message}: ${reason}` }],
    structuredContent: { error: message, status, ...(reason === undefined ? {} : { reason }) },
  };
}

/** What a route answered, as the tool's result: Markdown as text, JSON as its text and its object. */
function answered(tool: OperationTool, body: unknown): CallToolResult {
  const structured = isObject(body) ? { structuredContent: body } : {};
  if (tool.name === 'extract_markdown' && isObject(body) && typeof body.content === 'string')
    return { content: [{ type: 'text', text: body.content }], ...structured };
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], ...structured };
}

/** A research report with the pages it cites, numbered as it cites them. */
function reportResult(data: Record<string, unknown>): CallToolResult {
  const report = typeof data.report === 'string' ? data.report : '';
  const metadata = isObject(data.metadata) ? data.metadata : {};
  const cited = Array.isArray(metadata.citedPages) ? (metadata.citedPages as CitedPage[]) : [];
  const citations = cited.map(({ id, url, title }) => ({ id, url, ...(title ? { title } : {}) }));
  const sources = citations.map(({ id, url, title }) => `[${id}] ${title ? `${title}: ` : ''}${url}`);
  return {
    content: [
      { type: 'text', text: report },
      ...(sources.length > 0 ? [{ type: 'text' as const, text: `Sources:\n${sources.join('\n')}` }] : []),
    ],
    structuredContent: { report, citations },
  };
}

/** An automate task's `complete`: its final answer, or why it failed in `complete.error`'s words. */
function taskResult(data: Record<string, unknown>): CallToolResult {
  const error = isObject(data.error) ? data.error : undefined;
  const answer = typeof data.finalAnswer === 'string' ? data.finalAnswer : '';
  const text = data.success === true ? answer : String(error?.message ?? data.message ?? 'the task failed');
  return {
    ...(data.success === true ? {} : { isError: true }),
    content: [{ type: 'text', text }],
    structuredContent: data,
  };
}

/** The result of a run from its last events: the report or task outcome, or its `error` event's message. */
function outcomeResult(final: RecordedEvent | undefined): CallToolResult {
  const data = isObject(final?.data) ? final.data : {};
  if (final?.event === 'complete') return 'report' in data ? reportResult(data) : taskResult(data);
  const error = isObject(data.error) ? data.error : {};
  return toolError(String(error.message ?? data.message ?? 'the run ended without a result'), 500);
}

export interface ToolSession {
  server: Server;
}

export class ToolCall {
  constructor(
    private readonly deps: ApiDeps,
    private readonly session: ToolSession,
    private readonly post: ApiContext,
    private readonly tool: OperationTool,
    private readonly extra: ToolExtra,
  ) {}

  /**
   * Runs the tool's route as /v1 would, the call counted against the organization's requests per
   * minute like a /v1 request; a failure is a tool error with the spec's message, as the route's
   * status and body would say it.
   */
  async run(args: Record<string, unknown>): Promise<CallToolResult> {
    const ctx = callContext(this.post, args);
    let followed: FollowedRun | undefined;
    const deps: ApiDeps = {
      ...this.deps,
      streamWorkflow: async (runCtx, operation, workflow, options) => {
        followed = await this.deps.followWorkflow(runCtx, operation, workflow, options);
      },
    };
    try {
      await requestRateLimit(this.deps.rateLimits)(ctx, () => this.tool.route(deps)(ctx, async () => undefined));
      const result = followed ? await this.follow(followed) : answered(this.tool, ctx.body);
      // The POST's own log line has no run: this one names it (the route identified it on ctx).
      ctx.state.log.info({ tool: this.tool.name, failed: result.isError === true }, 'tool call answered');
      return result;
    } catch (err) {
      const error = toServiceError(err);
      const log =
        error.status >= 500 ? ctx.state.log.error.bind(ctx.state.log) : ctx.state.log.info.bind(ctx.state.log);
      log({ tool: this.tool.name, status: error.status, error: error.detail }, 'tool call failed');
      return toolError(error.message, error.status, error.reason);
    }
  }

  /**
   * Relays the run's events as progress, answers its form requests, and gives its outcome as the
   * result. A client that cancels the call, or whose connection goes (the call's result has no way
   * to it then: this endpoint offers no stream to resume on), leaves the run to go on as one that
   * leaves its stream.
   */
  private async follow({ events, runId }: FollowedRun): Promise<CallToolResult> {
    const { signal } = this.extra;
    const progressToken = this.extra._meta?.progressToken;
    const leave = () => events.close();
    signal.addEventListener('abort', leave, { once: true });
    const connection = this.post.res;
    connection.once('close', leave);
    let final: RecordedEvent | undefined;
    try {
      for (let batch = await events.next(); batch; batch = await events.next()) {
        for (const event of batch) {
          if (progressToken !== undefined) await this.progress(progressToken, event).catch(leave);
          if (event.event === 'complete' || event.event === 'error') final = event;
          if (event.event === 'interactive:form_data:request' || event.event === 'interactive:form_data:error')
            await this.answerForm(event.data as FormDataRequest);
        }
      }
    } finally {
      signal.removeEventListener('abort', leave);
      connection.off('close', leave);
      events.close();
    }
    if (events.interrupted)
      return toolError(`server shutting down; the run goes on: read it at GET /v1/runs/${runId}/events`, 503);
    return outcomeResult(final);
  }

  private progress(progressToken: string | number, event: RecordedEvent): Promise<void> {
    const data = isObject(event.data) ? event.data : {};
    const message = typeof data.message === 'string' && data.message !== '' ? data.message : event.event;
    return this.extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken, progress: event.id, message: `${event.event}: ${message}` },
    });
  }

  /**
   * Asks the person for the form's values through elicitation, where the client can ask; declines
   * where it cannot, fails to, or the person declines. The answer reaches the run as POST
   * .../input's does.
   */
  private async answerForm(request: FormDataRequest & { fieldErrors?: Record<string, string> }): Promise<void> {
    const { server } = this.session;
    let body: Record<string, unknown> = { cancelled: true };
    if (server.getClientCapabilities()?.elicitation?.form) {
      try {
        const result = await server.elicitInput(elicitation(request), {
          relatedRequestId: this.extra.requestId,
          signal: this.extra.signal,
          timeout: this.deps.config.automate.inputTimeoutMs,
        });
        if (result.action === 'accept' && result.content)
          body = { fields: fieldValues(request.fields, result.content) };
      } catch (err) {
        this.post.state.log.info({ err: err instanceof Error ? err.message : String(err) }, 'form request unanswered');
        // A call the client cancelled leaves the request to expire, as a client leaving its stream does;
        // a client that failed to ask, or whose answer the form refuses, declines rather than keep the run waiting.
        if (this.extra.signal.aborted) return;
      }
    }
    const ctx = callContext(this.post, body);
    (ctx as unknown as { params: Record<string, string> }).params = { requestID: request.requestId };
    try {
      await automateInputRoute(this.deps)(ctx, async () => undefined);
    } catch (err) {
      const error = toServiceError(err);
      ctx.state.log.info({ status: error.status, error: error.detail ?? error.message }, 'form answer refused');
    }
  }
}
