import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { MCP_SESSION_IDLE_MS } from '../../config/timeouts';
import { RateLimitedError, ServiceError } from '../../errors';
import type { ApiDeps } from '../deps';
import { jsonBody } from '../middleware/jsonBody';
import type { ApiState } from '../state';
import { ToolCall, type ApiContext } from './toolCall';
import { listedTools, OPERATION_TOOLS } from './tools';

/**
 * The MCP endpoint (Streamable HTTP) at /mcp: the operations as tools for AI assistants, behind
 * the API's keys. It runs in session mode, not stateless: an interactive automate run asks the
 * person for form values by elicitation, a request from the server in the middle of the tool
 * call, and the client answers it with a POST of its own, which must reach the server instance
 * that waits for it. A session lives in the API process that opened it (a deployment with several
 * behind one address routes by the `Mcp-Session-Id` header) and belongs to the organization whose
 * key opened it.
 */

/** Sessions one organization may hold open in one API process: each holds a server instance. */
const MAX_SESSIONS_PER_ORGANIZATION = 32;

interface Session {
  organization: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** HTTP requests of the session being served; it is idle when none is. */
  inFlight: number;
  idle?: NodeJS.Timeout;
}

/**
 * The HTTP request a message came in, for the tool call it carries: the SDK hands each message's
 * `authInfo` to its handler, so the request rides there (the key itself is not put in it).
 */
function authInfoOf(ctx: ApiContext): AuthInfo {
  return { token: '', clientId: ctx.state.organization!, scopes: [], extra: { post: ctx } };
}

function postOf(authInfo: AuthInfo | undefined): ApiContext {
  const post = authInfo?.extra?.post;
  if (!post) throw new McpError(ErrorCode.InternalError, 'the tool call came without its HTTP request');
  return post as ApiContext;
}

function createServer(deps: ApiDeps): Server {
  const server = new Server(
    { name: 'webloom', title: 'webloom', version: '1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Web content tools: fetch a page as Markdown or JSON, research a question on the web with cited sources, ' +
        'and run browser tasks. Research and automate report progress while they run.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = OPERATION_TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
    return new ToolCall(deps, { server }, postOf(extra.authInfo), tool, extra).run(request.params.arguments ?? {});
  });
  return server;
}

export function mcpRouter(deps: ApiDeps): Router<ApiState> {
  const sessions = new Map<string, Session>();
  /**
   * Every session from its first message to its close. A session gets its id (and its place in
   * `sessions`) only once its `initialize` has been handled, after awaits: counted from there, a
   * burst of first messages would all pass the cap.
   */
  const opened = new Set<Session>();
  const heldBy = (organization: string) =>
    [...opened].filter((session) => session.organization === organization).length;

  async function open(organization: string): Promise<Session> {
    if (heldBy(organization) >= MAX_SESSIONS_PER_ORGANIZATION)
      throw new RateLimitedError(
        Math.ceil(MCP_SESSION_IDLE_MS / 1000),
        `${organization} holds ${MAX_SESSIONS_PER_ORGANIZATION} MCP sessions`,
      );
    const server = createServer(deps);
    const session: Session = {
      organization,
      server,
      inFlight: 0,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, session),
      }),
    };
    opened.add(session);
    server.onclose = () => {
      clearTimeout(session.idle);
      opened.delete(session);
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    try {
      await server.connect(session.transport);
    } catch (err) {
      opened.delete(session);
      throw err;
    }
    return session;
  }

  function sessionOf(ctx: ApiContext): Session | undefined {
    const id = ctx.get('mcp-session-id');
    if (!id) return undefined;
    const session = sessions.get(id);
    // Another organization's session is as unknown as one that never was.
    if (!session || session.organization !== ctx.state.organization)
      throw new ServiceError('not_found', `no MCP session ${id} of ${ctx.state.organization}`);
    return session;
  }

  async function serve(ctx: ApiContext): Promise<void> {
    const known = sessionOf(ctx);
    if (!known && ctx.method !== 'POST') throw new ServiceError('not_found', 'no MCP session named');
    const session = known ?? (await open(ctx.state.organization!));
    session.inFlight++;
    clearTimeout(session.idle);
    try {
      // The SDK writes the headers, before requestLog would add the support id and before any tool
      // call starts a run: the id of an answer given before its run is the request's.
      ctx.set('x-trace-id', ctx.state.requestId);
      ctx.respond = false;
      const req = ctx.req as IncomingMessage & { auth?: AuthInfo };
      req.auth = authInfoOf(ctx);
      await session.transport.handleRequest(req, ctx.res, ctx.state.body);
    } catch (err) {
      // Koa answers a failure only while nothing has been sent.
      ctx.respond = !ctx.res.headersSent;
      throw err;
    } finally {
      session.inFlight--;
      // A first message that was not `initialize` opened no session: nothing will come back to it.
      if (!session.transport.sessionId) void session.server.close();
      else if (session.inFlight === 0 && sessions.has(session.transport.sessionId))
        session.idle = setTimeout(() => void session.server.close(), MCP_SESSION_IDLE_MS).unref();
    }
  }

  const router = new Router<ApiState>();
  router.post('/mcp', jsonBody(deps.config.bodyLimitBytes), serve);
  router.delete('/mcp', serve);
  // Nothing is sent outside a tool call, so no stream is offered for it; clients go on without one.
  router.get('/mcp', () => {
    throw new ServiceError('method_not_allowed');
  });
  return router;
}
