import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import Tabstack, { InternalServerError } from '@tabstack/sdk';
import { apiKey } from '../support/api';
import { startAutomateSite, type AutomateSite } from '../support/automateSite';
import { decide } from '../support/agentScript';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { pythonWithClient } from '../support/pythonClient';
import { volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { QUIET_RUN_WRITES } from '../support/sseClient';
import { NO_SEARCH_ENGINE, startSecondApi, stackEnv } from '../support/secondApi';
/**
 * Both official clients, the real libraries with their default settings, at a real model's
 * pace: every model answer takes 30 s, so each stream stays quiet for longer than the heartbeat
 * (15 s) many times, and an interactive automate task waits 90 s for its input. Research and
 * automate run on a stack that can research (test/support/researchStack.ts), all four streams at
 * once so the file stays within about four minutes. Also: the clients' retries of refusals.
 */

const MODEL_DELAY_MS = 30_000;
const INPUT_WAIT_S = 90;
const QUERY = 'How do the volcanoes of Iceland erupt?';
const PACED_CLIENT = path.join(__dirname, '..', 'support', 'python', 'paced_client.py');

let stack: ResearchStack;
let site: AutomateSite;
let pages: FixtureServer;

/** The Python client at `base` running one command of paced_client.py; its printed JSON. */
async function python(base: string, args: string[], timeoutMs: number): Promise<Record<string, unknown>> {
  // Not spawnSync: the pages and stand-ins are served by this process, which must keep running.
  const run = await promisify(execFile)(pythonWithClient(), [PACED_CLIENT, ...args], {
    env: { ...process.env, TABSTACK_BASE_URL: base, TABSTACK_API_KEY: apiKey() },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** A loopback relay to `target` that counts the requests it passes on. */
async function countingRelay(target: string): Promise<{ base: string; count: () => number; close(): Promise<void> }> {
  const upstream = new URL(target);
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ACTIONS: FormatReply[] = [
  { ...decide('the user filled', { action: 'abort', text: 'Stopped after the input' }), keep: true },
  {
    ...decide('Place order', { action: 'request_input', ref: '{{ref:textbox "Card number"}}', text: 'Card' }),
    keep: true,
  },
];

beforeAll(async () => {
  pages = await startFixtureServer({ '/gone': html('<h1>gone</h1>', 'text/html', 404) });
  site = await startAutomateSite();
  stack = await startResearchStack('pace');
}, 120_000);

afterAll(async () => {
  // The stand-in is shared: the next file must not inherit its pace.
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: '{"replies":[]}' });
  await stack?.close();
  await site?.close();
  await pages?.close();
});

describe('SSE framing in the Python client', () => {
  it("reads a quiet run's writes as its events only, comments anywhere", async () => {
    const decode = [
      'import json, sys',
      'from tabstack._streaming import SSEDecoder',
      'chunks = iter(json.load(sys.stdin))',
      'print(json.dumps([[e.event, e.json()] for e in SSEDecoder().iter_bytes(c.encode() for c in chunks)]))',
    ].join('\n');
    const child = execFile(pythonWithClient(), ['-c', decode], { encoding: 'utf8' });
    const output = new Promise<{ stdout: string; stderr: string }>((resolve) => {
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (text: string) => (stdout += text));
      child.stderr!.on('data', (text: string) => (stderr += text));
      child.on('close', () => resolve({ stdout, stderr }));
    });
    child.stdin!.end(JSON.stringify(QUIET_RUN_WRITES));
    const { stdout, stderr } = await output;
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual([
      ['start', { message: 'go', timestamp: 1 }],
      ['complete', { report: 'done\n\n', timestamp: 2 }],
    ]);
  });
});

describe('retries', () => {
  it('both clients, with their default retries, send a request refused for good once', async () => {
    // The shared stack may have a search engine (the cluster's has one): this API has none.
    const unsearched = await startSecondApi('api without a search engine', { env: stackEnv(NO_SEARCH_ENGINE) });
    const relay = await countingRelay(`${unsearched.root}/v1`);
    try {
      const npm = new Tabstack({ apiKey: apiKey(), baseURL: relay.base });
      await expect(npm.extract.markdown({ url: pages.url('/gone'), effort: 'min' })).rejects.toBeInstanceOf(
        InternalServerError,
      );
      await expect(npm.agent.research({ query: 'q' })).rejects.toMatchObject({ status: 503 });
      expect({ page: pages.hits.get('/gone'), api: relay.count() }).toEqual({ page: 1, api: 2 });

      const result = await python(relay.base, ['refusals', pages.url('/gone')], 60_000);
      expect(result).toEqual({
        missing_page: { status: 500, body: { error: 'failed to fetch URL' } },
        no_search_engine: { status: 503, body: { error: 'research service is not configured' } },
      });
      expect({ page: pages.hits.get('/gone'), api: relay.count() }).toEqual({ page: 2, api: 4 });
    } finally {
      await relay.close();
      await unsearched.stop();
    }
  }, 90_000);
});

describe('at a real model pace', () => {
  it('both clients read research and interactive automate to the end, through quiet minutes', async () => {
    const script: StandInScript = {
      replies: [],
      delayMs: MODEL_DELAY_MS,
      byFormat: {
        ...volcanoScript(),
        automate_plan: [
          { keep: true, content: JSON.stringify({ plan: 'Pay', successCriteria: 'Paid', actionItems: [] }) },
        ],
        automate_action: ACTIONS,
      },
    };
    await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(script) });
    const npm = new Tabstack({ apiKey: apiKey(), baseURL: stack.base });
    const task = {
      task: 'Buy the Aurora headphones',
      url: `${site.url}/checkout`,
      interactive: true,
      maxIterations: 4,
    };

    const npmResearch = (async () => {
      const events: string[] = [];
      for await (const event of await npm.agent.research({ query: QUERY, mode: 'fast' })) events.push(event.event);
      return { events };
    })();
    const npmAutomate = (async () => {
      const events: string[] = [];
      let answered: string | undefined;
      let complete: unknown;
      for await (const event of await npm.agent.automate(task)) {
        events.push(event.event);
        if (event.event === 'interactive:form_data:request') {
          const refOf = (label: string) => event.data.fields.find((field) => field.label === label)!.ref;
          // A person taking their time over the form is the pace under test.
          await new Promise((resolve) => setTimeout(resolve, INPUT_WAIT_S * 1000));
          answered = (
            await npm.agent.automateInput(event.data.requestId, {
              fields: [
                { ref: refOf('Card number'), value: '4111 1111 1111 1111' },
                { ref: refOf('CVC'), value: '123' },
              ],
            })
          ).status;
        }
        if (event.event === 'complete') complete = event.data;
      }
      return { events, answered, complete };
    })();
    const started = Date.now();
    const [npmRead, npmDone, pythonRead, pythonDone] = await Promise.all([
      npmResearch,
      npmAutomate,
      python(stack.base, ['research', QUERY], 280_000),
      python(stack.base, ['automate', `${site.url}/checkout`, String(INPUT_WAIT_S)], 280_000),
    ]);
    // Each stream was quiet past the heartbeat several times.
    expect(Date.now() - started).toBeGreaterThan(4 * MODEL_DELAY_MS);
    for (const research of [npmRead, pythonRead]) {
      expect((research.events as string[])[0]).toBe('start');
      expect((research.events as string[]).at(-1)).toBe('complete');
    }
    for (const automate of [npmDone, pythonDone]) {
      expect(automate.events as string[]).toContain('interactive:form_data:request');
      expect((automate.events as string[]).slice(-2)).toEqual(['complete', 'done']);
      expect(automate.answered).toBe('accepted');
      expect(automate.complete).toMatchObject({ success: false, finalAnswer: 'Stopped after the input' });
    }
  }, 290_000);
});
