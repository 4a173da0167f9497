import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { account, admin, newOrganization } from '../support/admin';
import { decide } from '../support/agentScript';
import { eventually } from '../support/eventually';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { startAutomateSite, type AutomateSite } from '../support/automateSite';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';

/**
 * The MCP endpoint end to end: the official SDK's client over Streamable HTTP against /mcp of an
 * API that can research (its own API and workers beside the shared stack, with the SearXNG
 * stand-in and the research corpus), the shared model stand-in playing the model and the agent,
 * and the shop fixture site in real Chromium for automate.
 */

let stack: ResearchStack;
let site: AutomateSite;
let mcpUrl: URL;
let org: string;
let key: string;
const clients: Client[] = [];

const PAGE_PATH = '/volcanoes/overview';
const JSON_SCHEMA = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
/** An input request unanswered this long expires, and the task is told so rather than declined. */
const INPUT_TIMEOUT_MS = 20_000;
/** A run no client reads any more goes on this long before it is cancelled (stream_abandoned). */
const DISCONNECT_GRACE_MS = 2_000;
/** Long runs are waited on this long between two progress notifications. */
const CALL_OPTIONS = { timeout: 60_000, resetTimeoutOnProgress: true };

type Elicit = (params: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>;

async function connect(apiKey: string, elicit?: Elicit): Promise<Client> {
  const client = new Client(
    { name: 'webloom-mcp-test', version: '1.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params as ElicitRequestFormParams));
  const transport = new StreamableHTTPClientTransport(mcpUrl, {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

/** The agent's plan and its validator's verdict, for every automate run here. */
const AUTOMATE_SCRIPT: Record<string, FormatReply[]> = {
  automate_plan: [
    {
      keep: true,
      content: JSON.stringify({ plan: 'Verify step by step', successCriteria: 'Verified', actionItems: [] }),
    },
  ],
  automate_validation: [
    {
      keep: true,
      content: JSON.stringify({ completionQuality: 'complete', observation: 'Verified', feedback: '' }),
    },
  ],
};

/** The agent asks for the member code, then does what `then` says. */
function verifyScript(then: FormatReply): Record<string, FormatReply[]> {
  return {
    ...AUTOMATE_SCRIPT,
    automate_action: [
      decide('Verify membership', {
        action: 'request_input',
        ref: '{{ref:textbox "Member code"}}',
        text: 'Member code',
      }),
      { ...then, keep: true },
    ],
  };
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

const verifyTask = () => ({
  task: 'Verify my membership',
  url: `${site.url}/verify`,
  interactive: true,
  maxIterations: 4,
});

async function automate(client: Client): Promise<{ result: CallToolResult; progress: Progress[] }> {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name: 'automate', arguments: verifyTask() }, undefined, {
    ...CALL_OPTIONS,
    onprogress: (update) => progress.push(update),
  })) as CallToolResult;
  return { result, progress };
}

beforeAll(async () => {
  [stack, site] = await Promise.all([
    startResearchStack('mcp', {
      AUTOMATE_INPUT_TIMEOUT_MS: String(INPUT_TIMEOUT_MS),
      STREAM_DISCONNECT_GRACE_MS: String(DISCONNECT_GRACE_MS),
    }),
    startAutomateSite(),
  ]);
  mcpUrl = new URL(`${stack.base.replace(/\/v1$/, '')}/mcp`);
  ({ org, key } = await newOrganization('mcp', 5000));
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await site?.close();
  await stack?.close();
});

describe('the MCP endpoint', () => {
  it('lists a tool per operation, each with its request body schema from the API description', async () => {
    const client = await connect(key);
    const { tools } = await client.listTools();
    const described = (await (await fetch(`${stack.base}/openapi.json`)).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    const schemas = described.components.schemas;
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema]))).toEqual({
      extract_markdown: schemas.ExtractMarkdownRequest,
      extract_json: schemas.ExtractJsonRequest,
      generate_json: schemas.GenerateJsonRequest,
      research: schemas.ResearchRequest,
      automate: schemas.AutomateRequest,
    });
    expect(schemas.AutomateRequest).toMatchObject({
      properties: { data: expect.any(Object), guardrails: expect.any(Object), interactive: expect.any(Object) },
    });
  });

  it('refuses a wrong key before any session', async () => {
    await expect(connect('wl_live_not-a-key')).rejects.toThrow(/401|invalid or missing API key/);
  });

  it("is found by the launcher's probe, and offers no stream outside a tool call", async () => {
    // src/stack/untilServing.ts: the banner names /mcp when OPTIONS does not answer 404.
    expect((await fetch(mcpUrl, { method: 'OPTIONS' })).status).toBe(204);
    const get = await fetch(mcpUrl, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    expect({ status: get.status, body: await get.json() }).toEqual({
      status: 405,
      body: { error: 'method not allowed' },
    });
  });

  it('answers the page tools and charges each call as /v1 charges it', async () => {
    await script({ answer: [{ content: JSON.stringify({ title: 'Volcanoes of Iceland' }), keep: true }] });
    const client = await connect(key);
    const url = stack.corpus.url(PAGE_PATH);
    const before = (await account(org)).balance;
    const markdown = (await client.callTool({
      name: 'extract_markdown',
      arguments: { url, effort: 'min', nocache: true, metadata: true },
    })) as CallToolResult;
    expect(markdown.isError).toBeFalsy();
    expect(textOf(markdown)).toContain('# ');
    expect(markdown.structuredContent).toMatchObject({ url, metadata: expect.any(Object) });
    const extracted = (await client.callTool({
      name: 'extract_json',
      arguments: { url, json_schema: JSON_SCHEMA, effort: 'min' },
    })) as CallToolResult;
    expect(extracted.structuredContent).toEqual({ title: 'Volcanoes of Iceland' });
    const generated = (await client.callTool({
      name: 'generate_json',
      arguments: { url, json_schema: JSON_SCHEMA, instructions: 'Name the page', effort: 'min' },
    })) as CallToolResult;
    expect(JSON.parse(textOf(generated))).toEqual({ title: 'Volcanoes of Iceland' });
    const viaApi = await fetch(`${stack.base}/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, effort: 'min', nocache: true }),
    });
    expect(viaApi.status).toBe(200);
    const { balance, ledger } = await account(org);
    const charges = ledger.filter((entry) => entry.kind === 'charge').slice(0, 4);
    expect(charges.map((entry) => [entry.operation, entry.amount]).reverse()).toEqual([
      ['extract-markdown', -10],
      ['extract-json', -50],
      ['generate-json', -100],
      ['extract-markdown', -10],
    ]);
    expect(before - balance).toBe(170);
  }, 60_000);

  it("gives the spec's errors as tool errors: a bad body's 400 and an empty balance's 402", async () => {
    const client = await connect(key);
    const missing = (await client.callTool({ name: 'extract_markdown', arguments: {} })) as CallToolResult;
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: 'url is required', status: 400 } });
    const broke = await newOrganization('mcp-broke', 1);
    const poor = await connect(broke.key);
    const refused = (await poor.callTool({
      name: 'extract_markdown',
      arguments: { url: stack.corpus.url(PAGE_PATH) },
    })) as CallToolResult;
    expect(refused).toMatchObject({ isError: true, structuredContent: { error: 'insufficient credits', status: 402 } });
    expect(textOf(refused)).toBe('insufficient credits');
  });

  it('counts a tool call as a /v1 request, 429 past the limit, and keeps a session to its organization', async () => {
    const limited = await newOrganization('mcp-limited', 1000);
    await admin('limits', 'set', limited.org, '--per-minute', '1');
    const client = await connect(limited.key);
    // The protocol's own messages are not counted.
    await client.listTools();
    await client.listTools();
    const call = async () =>
      ((await client.callTool({ name: 'extract_markdown', arguments: {} })) as CallToolResult).structuredContent;
    expect(await call()).toEqual({ error: 'url is required', status: 400 });
    expect(await call()).toEqual({ error: 'rate limit exceeded', status: 429 });
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const listTools = (apiKey: string) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const asOther = await listTools(key);
    expect({ status: asOther.status, body: await asOther.json() }).toEqual({
      status: 404,
      body: { error: 'not found' },
    });
    // The support id on an answer the SDK writes, as on every answer (issue 26, section 1).
    const asOwner = await listTools(limited.key);
    await asOwner.body?.cancel();
    expect(asOwner.status).toBe(200);
    expect(asOwner.headers.get('x-trace-id')).toBe(asOwner.headers.get('x-request-id'));
  });

  it("holds a stream slot for a tool's run: another run over the limit is a 429 tool error", async () => {
    const single = await newOrganization('mcp-streams', 1000);
    await admin('limits', 'set', single.org, '--streams', '1');
    await script(verifyScript(decide('', { action: 'abort', text: 'No member code' })));
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    let release!: (result: ElicitResult) => void;
    const answer = new Promise<ElicitResult>((resolve) => (release = resolve));
    const first = automate(
      await connect(single.key, () => {
        asked();
        return answer;
      }),
    );
    await waiting;
    const second = (await (
      await connect(single.key)
    ).callTool({
      name: 'research',
      arguments: { query: 'How do the volcanoes of Iceland erupt?' },
    })) as CallToolResult;
    expect(second).toMatchObject({ isError: true, structuredContent: { error: 'rate limit exceeded', status: 429 } });
    release({ action: 'decline' });
    expect((await first).result).toMatchObject({ structuredContent: { success: false } });
    // The automate run's charge alone: the refused research was never charged.
    expect((await account(single.org)).ledger.filter((entry) => entry.kind === 'charge')).toEqual([
      expect.objectContaining({ operation: 'automate', amount: -100 }),
    ]);
  }, 90_000);

  it('holds an organization to 32 sessions, and frees one a client ends', async () => {
    const crowded = await newOrganization('mcp-sessions', 10);
    const held = await Promise.all(Array.from({ length: 32 }, () => connect(crowded.key)));
    await expect(connect(crowded.key)).rejects.toThrow(/429|rate limit exceeded/);
    // Other organizations are not crowded out.
    await connect(key);
    await (held[0]!.transport as StreamableHTTPClientTransport).terminateSession();
    await expect(connect(crowded.key)).resolves.toBeDefined();
  });

  it('holds to 32 sessions when more than 32 clients open theirs at the same moment', async () => {
    const crowded = await newOrganization('mcp-burst', 10);
    const opened = await Promise.allSettled(Array.from({ length: 40 }, () => connect(crowded.key)));
    expect(opened.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(32);
  });

  it('reports research progress as it runs and gives the report with its sources as the result', async () => {
    await script(volcanoScript());
    const client = await connect(key);
    const progress: Progress[] = [];
    const result = (await client.callTool(
      { name: 'research', arguments: { query: 'How do the volcanoes of Iceland erupt?', mode: 'fast' } },
      undefined,
      { ...CALL_OPTIONS, onprogress: (update) => progress.push(update) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const messages = progress.map((update) => update.message ?? '');
    expect(messages[0]).toMatch(/^start: /);
    expect(messages.some((message) => message.startsWith('searching:end: '))).toBe(true);
    expect(progress.map((update) => update.progress)).toEqual(
      [...progress.map((u) => u.progress)].sort((a, b) => a - b),
    );
    expect(textOf(result)).toContain('Iceland lies on the Mid-Atlantic Ridge [1].');
    const { citations } = result.structuredContent as { citations: { id: string; url: string }[] };
    expect(citations.length).toBeGreaterThan(0);
    const sources = textOf(result).split('Sources:\n')[1] ?? '';
    for (const { id, url } of citations) {
      expect(sources).toContain(`[${id}] `);
      expect(sources).toContain(url);
    }
    expect(citations.map(({ url }) => new URL(url).origin)).toContain(new URL(stack.corpus.url('/')).origin);
  }, 90_000);

  it('leaves a run whose client went away without cancelling, as a stream its client left', async () => {
    // The plan comes late, so the run is still going when its client goes.
    await script(volcanoScript({ research_plan: [{ content: '{}', delayMs: 15_000 }] }));
    const { org: gone, key: goneKey } = await newOrganization('mcp-gone', 1000);
    const post = (body: unknown, sessionId?: string, signal?: AbortSignal) =>
      fetch(mcpUrl, {
        method: 'POST',
        signal,
        headers: {
          authorization: `Bearer ${goneKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'leaves', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    // No progress token: nothing is sent on the call's stream before its result.
    const call = new AbortController();
    const answer = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'research', arguments: { query: 'How volcanic is Iceland?', nocache: true } },
      },
      sessionId,
      call.signal,
    );
    expect(answer.status).toBe(200);
    const workflowId = await eventually(
      async () =>
        (await account(gone)).ledger.find((entry) => entry.operation?.startsWith('research'))?.runKey ?? false,
      { what: 'the research call to be charged', timeoutMs: 30_000, intervalMs: 200 },
    );
    // The connection goes, with no notifications/cancelled: a client that crashed or lost its network.
    call.abort();
    const connection = await Connection.connect({ address: stack.env.TEMPORAL_ADDRESS! });
    try {
      const run = new TemporalClient({
        connection,
        namespace: stack.env.TEMPORAL_NAMESPACE,
        dataConverter,
      }).workflow.getHandle(workflowId);
      // Cancelled after the grace period, as a stream nobody reads; not run to its end for nobody.
      const ended = await run.result().then(
        () => 'completed',
        (err: unknown) => err,
      );
      expect(ended).toMatchObject({ cause: { type: 'stream_abandoned' } });
    } finally {
      await connection.close();
    }
  }, 90_000);

  it("asks an interactive task's form through elicitation and types the person's answer into the page", async () => {
    await script(verifyScript(decide('', { action: 'done', text: 'Verified' })));
    const asked: ElicitRequestFormParams[] = [];
    const client = await connect(key, (params) => {
      asked.push(params);
      const [field] = Object.keys(params.requestedSchema.properties);
      return { action: 'accept', content: { [field!]: 'M-4242' } };
    });
    const { result, progress } = await automate(client);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('Verify membership');
    expect(Object.values(asked[0]!.requestedSchema.properties)).toEqual([
      expect.objectContaining({ type: 'string', title: 'Member code' }),
    ]);
    expect(result).toMatchObject({ structuredContent: { success: true, finalAnswer: 'Verified' } });
    expect(textOf(result)).toBe('Verified');
    expect(progress.some((update) => update.message?.startsWith('interactive:form_data:request'))).toBe(true);
    const prompts = JSON.stringify(await (await fetch(`${process.env.TEST_MODEL_URL}/__control/requests`)).json());
    // Typed into the page, which echoes it, and hidden from the model.
    expect(prompts).toContain('Checking (hidden)');
    expect(prompts).toContain('the user filled: Member code');
    expect(prompts).not.toContain('M-4242');
  }, 90_000);

  it('tells the task the person declined, whether they declined, their client failed or cannot ask', async () => {
    const failing: Elicit = () => {
      throw new Error('the client could not show the form');
    };
    for (const elicit of [() => ({ action: 'decline' }) as ElicitResult, failing, undefined]) {
      await script(verifyScript(decide('', { action: 'abort', text: 'No member code' })));
      const { result, progress } = await automate(await connect(key, elicit));
      expect(result).toMatchObject({ isError: true, structuredContent: { success: false } });
      expect(progress.map((update) => update.message).join('\n')).toContain('The user declined the input request');
    }
  }, 120_000);
});
