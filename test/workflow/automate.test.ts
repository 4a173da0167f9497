import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ulid } from 'ulid';
import type { AutomateReply } from '../../src/activities/automateModel';
import type { AutomateEvents } from '../../src/events/automate';
import type { RecordedEvent } from '../../src/events/messages';
import {
  SESSION_LOST,
  SESSIONS_BUSY_MESSAGE,
  SESSIONS_FULL,
  STEP_FAILED,
  type ActionOutcome,
  type AutomateInput,
  type AutomateRequest,
  type BrowserAction,
  type FieldValue,
  type FormField,
  type Observation,
} from '../../src/operations/automate';
import { submitInputUpdate } from '../../src/operations/automateInput';
import type { Decision, DecideInput, Validation } from '../../src/prompts/automate.v1';
import { MODEL_FAILED } from '../../src/errors';
import { decision } from '../support/agentScript';
import { eventually } from '../support/eventually';
import { finished, recordedEvents, startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * The agent loop on Temporal's time-skipping test server, every activity a test double: how a
 * task ends (done and validated, aborted, out of iterations, out of tries), validation sent back
 * and retried, an unusable validation, interactive input answered, cancelled, refused and
 * expired, and a lost browser session resumed on a new one.
 */

const TASK_QUEUE = 'automate';

interface Doubles {
  decisions: Partial<Decision>[];
  /** Repeated once `decisions` runs out. */
  lastDecision: Partial<Decision>;
  validations: (Validation | 'unusable')[];
  actionFails: boolean;
  /** What planning fails with, as the activity's error says it. */
  planFails?: string;
  /** The performAction call (counting from 1) that finds the session gone. */
  loseAt?: number;
  /** Why the start page did not load, as openSession answers it. */
  startError?: string;
  /** readPageText finds the page not answering. */
  readFails: boolean;
  /** openSession calls refused for want of a free session before one opens. */
  fullFor: number;
  /** When each openSession call was scheduled (the test server's time, which skips). */
  openAttempts: number[];
  calls: number;
  opened: { url?: string; hidden: string[]; guarded: string[] }[];
  performed: BrowserAction[];
  /** What performAction and fillFields were given besides the action or values: JSON, one per call. */
  stepInputs: string[];
  filled: FieldValue[][];
  decided: DecideInput[];
  closed: number;
}

let doubles: Doubles;
let tier: WorkflowTier;

const usage = { prompt: 50, completion: 10, total: 60 };
const reply = <T>(value: T): AutomateReply<T> => ({
  value,
  usage,
  model: 'double-model',
  promptVersion: 'automate/v1',
  prompt: 'prompt',
});

const FIELDS: FormField[] = [
  { ref: 'e7', label: 'Card number', fieldType: 'text', required: true, rules: { minLength: 12 } },
  { ref: 'e8', label: 'Country', fieldType: 'select', required: false, options: ['DE', 'FR'] },
];

let page = { url: 'https://shop.example/', title: 'Shop' };

const activities = {
  async openSession(input: { sessionId: string; url?: string; hidden: string[]; guarded: string[] }) {
    doubles.openAttempts.push(Context.current().info.scheduledTimestampMs);
    if (doubles.openAttempts.length <= doubles.fullFor)
      throw ApplicationFailure.nonRetryable('this browser worker already holds 4 sessions', SESSIONS_FULL);
    doubles.opened.push({ url: input.url, hidden: input.hidden, guarded: input.guarded });
    page = { url: input.url ?? 'about:blank', title: 'Shop' };
    return { queue: TASK_QUEUE, ...page, ...(doubles.startError ? { startError: doubles.startError } : {}) };
  },
  async observePage(): Promise<Observation> {
    return { ...page, snapshot: '- button "Buy" [ref=e1]', truncated: false };
  },
  async performAction(input: { action: BrowserAction; observe?: object }): Promise<ActionOutcome> {
    if (++doubles.calls === doubles.loseAt) throw ApplicationFailure.nonRetryable('no such session', SESSION_LOST);
    doubles.performed.push(input.action);
    doubles.stepInputs.push(JSON.stringify({ ...input, action: undefined }));
    if (input.action.type === 'navigate') page = { url: input.action.url, title: 'Elsewhere' };
    const outcome = doubles.actionFails
      ? { success: false, error: 'element not found', ...page, navigated: false }
      : { success: true, ...page, navigated: input.action.type === 'navigate' };
    return input.observe ? { ...outcome, observation: await activities.observePage() } : outcome;
  },
  async readPageText() {
    if (doubles.readFails) throw ApplicationFailure.nonRetryable('reading the page took longer than 5 s', STEP_FAILED);
    return { ...page, text: 'Price: 12 EUR' };
  },
  async describeForm() {
    return { fields: FIELDS, formDescription: 'Payment' };
  },
  async fillFields(input: { values: FieldValue[] }) {
    doubles.stepInputs.push(JSON.stringify({ ...input, values: undefined }));
    const short = input.values.filter((entry) => entry.ref === 'e7' && entry.value.length < 12);
    if (short.length > 0) return { fieldErrors: { e7: 'at least 12 characters are required' } };
    doubles.filled.push(input.values);
    return { fieldErrors: {} };
  },
  async closeSession() {
    doubles.closed++;
  },
  async planTask() {
    if (doubles.planFails) throw ApplicationFailure.nonRetryable(doubles.planFails, 'ModelError');
    return reply({ plan: 'Buy it', successCriteria: 'An order number', actionItems: ['buy'] });
  },
  async decideAction(input: DecideInput) {
    doubles.decided.push(input);
    return reply(decision(doubles.decisions.shift() ?? doubles.lastDecision));
  },
  async extractData() {
    return reply({ json: '{"price":"12 EUR"}' });
  },
  async validateCompletion() {
    const next = doubles.validations.shift() ?? { completionQuality: 'complete', observation: 'ok', feedback: '' };
    if (next === 'unusable')
      throw ApplicationFailure.create({
        message: 'no answer matched the schema',
        type: MODEL_FAILED,
        nonRetryable: true,
        details: [{ errors: ['completionQuality is missing'], rawResponse: '{}' }],
      });
    return reply(next);
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
});

afterAll(() => tier?.stop());

beforeEach(() => {
  page = { url: 'https://shop.example/', title: 'Shop' };
  doubles = {
    decisions: [],
    lastDecision: { action: 'done', text: 'Order 42' },
    validations: [],
    actionFails: false,
    readFails: false,
    fullFor: 0,
    openAttempts: [],
    calls: 0,
    opened: [],
    performed: [],
    stepInputs: [],
    filled: [],
    decided: [],
    closed: 0,
  };
});

function inputFor(request: Partial<AutomateRequest> = {}, inputTimeoutMs = 120_000): AutomateInput {
  return {
    request: {
      task: 'Buy the cheapest kettle',
      url: 'https://shop.example/',
      maxIterations: 10,
      maxValidationAttempts: 3,
      interactive: false,
      trustedHostnames: [],
      unsafeMode: false,
      ...request,
    },
    queues: { browser: TASK_QUEUE, model: TASK_QUEUE },
    inputTimeoutMs,
    screenshots: false,
  };
}

const start = (input: AutomateInput) => tier.start('automate', input, `test-org/automate/${ulid()}`);
const run = async (input: AutomateInput) => finished(await start(input));
const names = (events: RecordedEvent[]) => events.map((event) => event.event);
const dataOf = <E extends keyof AutomateEvents>(events: RecordedEvent[], name: E): AutomateEvents[E][] =>
  events.filter((event) => event.event === name).map((event) => event.data as AutomateEvents[E]);
const complete = (events: RecordedEvent[]) => dataOf(events, 'complete')[0]!;

/** Waits (in real time: no skipping while nothing awaits the result) for the run's next input request. */
async function inputRequest(handle: WorkflowHandle, count = 1): Promise<string> {
  const requests = await eventually(
    async () => {
      const asked = (await recordedEvents(handle)).filter((event) => event.event.startsWith('interactive:form_data:'));
      return asked.length >= count && asked;
    },
    { what: `input request ${count}`, timeoutMs: 30_000, intervalMs: 50 },
  );
  return (requests[count - 1]!.data as { requestId: string }).requestId;
}

describe('how a task ends', () => {
  test('done and validated: the stream ends task:completed, complete, done, and the session is closed', async () => {
    doubles.decisions = [
      { action: 'click', ref: 'e1' },
      { action: 'extract', text: 'the price' },
    ];
    const { events, failure } = await run(inputFor());
    expect(failure).toBeUndefined();
    expect(names(events).slice(0, 4)).toEqual(['start', 'task:trace_context', 'task:setup', 'cdp:endpoint_connected']);
    expect(names(events)).toContain('task:started');
    expect(names(events).slice(-4)).toEqual(['task:completed', 'task:metrics', 'complete', 'done']);
    expect(dataOf(events, 'agent:extracted')[0]!.extractedData).toBe('{"price":"12 EUR"}');
    const done = complete(events);
    expect(done).toMatchObject({ success: true, finalAnswer: 'Order 42' });
    expect(done.stats).toMatchObject({ iterations: 3, actions: 1 });
    expect(done.error).toBeUndefined();
    expect(doubles.closed).toBe(1);
  });

  test('abort: TASK_ABORTED with the reason', async () => {
    doubles.decisions = [{ action: 'abort', text: 'the shop is closed' }];
    const { events, failure } = await run(inputFor());
    expect(failure).toBeUndefined();
    expect(dataOf(events, 'task:aborted')[0]!.reason).toBe('the shop is closed');
    expect(complete(events)).toMatchObject({ success: false, error: { code: 'TASK_ABORTED' } });
    expect(names(events).slice(-2)).toEqual(['complete', 'done']);
  });

  test('maxIterations reached: MAX_ITERATIONS after exactly that many steps', async () => {
    doubles.lastDecision = { action: 'scroll', direction: 'down' };
    const { events } = await run(inputFor({ maxIterations: 3 }));
    expect(dataOf(events, 'agent:step').map((step) => step.currentIteration)).toEqual([1, 2, 3]);
    expect(complete(events)).toMatchObject({ success: false, error: { code: 'MAX_ITERATIONS' } });
    expect(complete(events).stats.iterations).toBe(3);
  });

  test('failing actions: MAX_ERRORS after five in a row, and the run fails for operators', async () => {
    doubles.lastDecision = { action: 'click', ref: 'e1' };
    doubles.actionFails = true;
    const { events, failure } = await run(inputFor());
    expect(dataOf(events, 'browser:action_completed').map((outcome) => outcome.success)).toEqual(Array(5).fill(false));
    expect(complete(events)).toMatchObject({ success: false, error: { code: 'MAX_ERRORS' } });
    expect(failure?.type).toBe('MAX_ERRORS');
    expect(names(events).at(-1)).toBe('done');
  });

  test('complete.error says a fixed message per code; the cause goes to the run failure only', async () => {
    doubles.planFails = 'model unreachable: Connection error.';
    const failed = await run(inputFor());
    expect(complete(failed.events).error).toEqual({ code: 'TASK_FAILED', message: 'the task failed' });
    expect(failed.failure?.message).toBe('model unreachable: Connection error.');
    expect(JSON.stringify(complete(failed.events))).not.toContain('Connection error');
    // No other event carries the model client's words either.
    expect(JSON.stringify(failed.events)).not.toContain('Connection error');
    expect(dataOf(failed.events, 'ai:generation:error')[0]).toMatchObject({ error: 'the model could not be reached' });

    doubles.planFails = undefined;
    doubles.lastDecision = { action: 'click', ref: 'e1' };
    doubles.actionFails = true;
    const stuck = await run(inputFor());
    expect(complete(stuck.events).error).toEqual({ code: 'MAX_ERRORS', message: 'too many steps failed in a row' });
    expect(stuck.failure?.message).toMatch(/^5 steps failed in a row; the last: element not found/);
  });

  test('a data path is typed as the real value, shown by its path, and never given to the model', async () => {
    doubles.decisions = [
      { action: 'fill', ref: 'e3', dataPath: 'user.password' },
      { action: 'fill', ref: 'e2', dataPath: 'data.user.email' },
    ];
    const { events } = await run(inputFor({ data: { user: { email: 'ana@example.com', password: 'hunter22' } } }));
    // The path makes the credential, whatever field the page offers for it.
    expect(doubles.performed.slice(0, 2)).toEqual([
      { type: 'fill', ref: 'e3', value: 'hunter22', source: 'data', credential: true },
      { type: 'fill', ref: 'e2', value: 'ana@example.com', source: 'data', credential: false },
    ]);
    // The session is told once, when it opens, what to hide from every answer of its own and what
    // no address may carry; its steps are told neither.
    expect(doubles.stepInputs.join('\n')).not.toMatch(/hunter22|ana@example/);
    expect(doubles.opened).toEqual([
      expect.objectContaining({ hidden: ['hunter22'], guarded: ['ana@example.com', 'hunter22'] }),
    ]);
    expect(dataOf(events, 'agent:action')[0]).toMatchObject({ action: 'fill', value: 'data.user.password' });
    expect(JSON.stringify(doubles.decided)).not.toContain('hunter22');
    expect(JSON.stringify(events)).not.toContain('hunter22');
  });

  test('a value the model typed that is a credential of the data counts as that credential', async () => {
    doubles.decisions = [
      { action: 'fill', ref: 'e3', value: 'hunter22' },
      { action: 'fill', ref: 'e4', value: 'kettle' },
    ];
    await run(inputFor({ data: { user: { password: 'hunter22' } } }));
    expect(doubles.performed.slice(0, 2)).toEqual([
      { type: 'fill', ref: 'e3', value: 'hunter22', source: 'data', credential: true },
      { type: 'fill', ref: 'e4', value: 'kettle', source: 'model', credential: false },
    ]);
  });
});

describe('validation', () => {
  test('an answer sent back is retried with the feedback, then accepted', async () => {
    doubles.validations = [
      { completionQuality: 'failed', observation: 'no order number', feedback: 'Place the order first' },
      { completionQuality: 'excellent', observation: 'ok', feedback: '' },
    ];
    const { events } = await run(inputFor());
    expect(dataOf(events, 'task:validated').map((v) => v.completionQuality)).toEqual(['failed', 'excellent']);
    expect(doubles.decided[1]!.feedback).toBe('Place the order first');
    expect(complete(events)).toMatchObject({ success: true, finalAnswer: 'Order 42' });
  });

  test('an unusable validation is task:validation_error; attempts run out as TASK_FAILED', async () => {
    doubles.validations = ['unusable', { completionQuality: 'partial', observation: 'half', feedback: 'more' }];
    const { events, failure } = await run(inputFor({ maxValidationAttempts: 2 }));
    expect(dataOf(events, 'task:validation_error')[0]).toMatchObject({
      errors: ['completionQuality is missing'],
      rawResponse: '{}',
      retryCount: 1,
    });
    expect(complete(events)).toMatchObject({ success: false, finalAnswer: 'Order 42', error: { code: 'TASK_FAILED' } });
    expect(failure?.type).toBe('TASK_FAILED');
  });
});

describe('interactive input', () => {
  const asking = { action: 'request_input' as const, ref: 'e7', text: 'payment details' };

  test('answered: the values are typed, the model sees only which fields; a second answer is refused', async () => {
    doubles.decisions = [asking];
    const handle = await start(inputFor({ interactive: true }));
    const requestId = await inputRequest(handle);
    const events = await recordedEvents(handle);
    expect(dataOf(events, 'interactive:form_data:request')[0]).toMatchObject({
      requestId,
      fields: FIELDS,
      formDescription: 'Payment',
      pageUrl: 'https://shop.example/',
    });
    const values = [{ ref: 'e7', value: '4111111111111111' }];
    await expect(
      handle.executeUpdate(submitInputUpdate, { args: [{ requestId, fields: values, cancelled: false }] }),
    ).resolves.toEqual({ status: 'accepted' });
    await expect(
      handle.executeUpdate(submitInputUpdate, { args: [{ requestId, fields: values, cancelled: false }] }),
    ).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
    const { events: all } = await finished(handle);
    expect(doubles.filled).toEqual([values]);
    expect(doubles.stepInputs.join('\n')).not.toContain('4111111111111111');
    expect(doubles.opened[0]).toMatchObject({ hidden: [], guarded: [] });
    expect(JSON.stringify(doubles.decided)).not.toContain('4111111111111111');
    expect(doubles.decided[1]!.steps.at(-1)!.outcome).toContain('Card number');
    expect(complete(all).success).toBe(true);
  });

  test('values that break a field rule get interactive:form_data:error and a new request', async () => {
    doubles.decisions = [asking];
    const handle = await start(inputFor({ interactive: true }));
    const first = await inputRequest(handle);
    await handle.executeUpdate(submitInputUpdate, {
      args: [{ requestId: first, fields: [{ ref: 'e7', value: '123' }], cancelled: false }],
    });
    const second = await inputRequest(handle, 2);
    expect(second).not.toBe(first);
    const error = dataOf(await recordedEvents(handle), 'interactive:form_data:error')[0]!;
    expect(error.fieldErrors).toEqual({ e7: 'at least 12 characters are required' });
    await handle.executeUpdate(submitInputUpdate, {
      args: [{ requestId: second, fields: [{ ref: 'e7', value: '4111111111111111' }], cancelled: false }],
    });
    await finished(handle);
    expect(doubles.filled).toEqual([[{ ref: 'e7', value: '4111111111111111' }]]);
  });

  test('cancelled: nothing is typed and the agent goes on', async () => {
    doubles.decisions = [asking];
    const handle = await start(inputFor({ interactive: true }));
    const requestId = await inputRequest(handle);
    await handle.executeUpdate(submitInputUpdate, { args: [{ requestId, fields: [], cancelled: true }] });
    const { events } = await finished(handle);
    expect(doubles.filled).toEqual([]);
    expect(doubles.decided[1]!.steps.at(-1)!.outcome).toContain('declined');
    expect(complete(events).success).toBe(true);
  });

  test('expired after the configured wait: later answers are refused, and the agent goes on', async () => {
    doubles.decisions = [asking];
    const handle = await start(inputFor({ interactive: true }, 120_000));
    const requestId = await inputRequest(handle);
    const { events } = await finished(handle);
    expect(doubles.decided[1]!.steps.at(-1)!.outcome).toContain('did not answer in time');
    expect(complete(events).success).toBe(true);
    await expect(
      handle.executeUpdate(submitInputUpdate, { args: [{ requestId, fields: [], cancelled: true }] }),
    ).rejects.toThrow();
  });

  test('without interactive mode an input request is a failed step', async () => {
    doubles.decisions = [asking];
    const { events } = await run(inputFor());
    expect(names(events)).not.toContain('interactive:form_data:request');
    expect(doubles.decided[1]!.steps.at(-1)!.outcome).toContain('interactive mode');
  });
});

describe('a lost browser session', () => {
  test('a new session resumes at the last URL with browser:reconnected, and the task goes on', async () => {
    doubles.decisions = [
      { action: 'navigate', url: 'https://shop.example/cart' },
      { action: 'click', ref: 'e1' },
    ];
    doubles.loseAt = 2;
    const { events } = await run(inputFor());
    expect(doubles.opened.map((opened) => opened.url)).toEqual(['https://shop.example/', 'https://shop.example/cart']);
    expect(dataOf(events, 'browser:reconnected')[0]).toMatchObject({ startingUrl: 'https://shop.example/cart' });
    expect(complete(events).success).toBe(true);
  });
});

describe('a page that fails a step', () => {
  test('a page that does not answer an extract fails that step, counted, and the agent goes on', async () => {
    doubles.decisions = [{ action: 'extract', text: 'the price' }];
    doubles.readFails = true;
    const { events, failure } = await run(inputFor());
    expect(failure).toBeUndefined();
    expect(dataOf(events, 'agent:status').map((status) => status.message)).toContain(
      'The page could not be read: reading the page took longer than 5 s',
    );
    expect(doubles.decided[1]!.steps.at(-1)).toMatchObject({
      action: 'extract "the price"',
      outcome: 'failed: reading the page took longer than 5 s',
    });
    expect(complete(events).success).toBe(true);
  });

  test('a start page that did not load is a failed step, and the agent goes on', async () => {
    doubles.startError = 'opening https://shop.example/: Timeout 15000ms exceeded.';
    const { events, failure } = await run(inputFor());
    expect(failure).toBeUndefined();
    expect(dataOf(events, 'agent:status').map((status) => status.message)).toContain(
      'The start page did not load: opening https://shop.example/: Timeout 15000ms exceeded.',
    );
    expect(doubles.decided[0]!.steps[0]).toMatchObject({
      action: 'open the start page',
      outcome: 'failed: opening https://shop.example/: Timeout 15000ms exceeded.',
    });
    expect(complete(events).success).toBe(true);
  });

  test('a start page that did not load counts towards MAX_ERRORS', async () => {
    doubles.startError = 'opening https://shop.example/: Timeout 15000ms exceeded.';
    doubles.lastDecision = { action: 'click', ref: 'e1' };
    doubles.actionFails = true;
    const { events } = await run(inputFor());
    expect(complete(events).error).toMatchObject({ code: 'MAX_ERRORS' });
    expect(dataOf(events, 'browser:action_completed')).toHaveLength(4);
  });
});

describe('waiting for a browser session', () => {
  test('a task that finds every session in use waits, asking again with backoff, and goes on once one frees', async () => {
    doubles.fullFor = 6;
    const { events, failure } = await run(inputFor());
    expect(failure).toBeUndefined();
    expect(doubles.openAttempts).toHaveLength(7);
    const gaps = doubles.openAttempts.slice(1).map((at, i) => at - doubles.openAttempts[i]!);
    expect(gaps.map((gap) => Math.round(gap / 1000))).toEqual([1, 2, 4, 5, 5, 5]);
    expect(dataOf(events, 'agent:status').map((status) => status.message)).toEqual([
      'Every browser session is in use; waiting for one',
    ]);
    expect(complete(events).success).toBe(true);
  });

  test('a task that waits past the bound ends TASK_FAILED with the fixed message', async () => {
    doubles.fullFor = Infinity;
    const { events, failure } = await run(inputFor());
    expect(complete(events)).toMatchObject({
      success: false,
      error: { code: 'TASK_FAILED', message: SESSIONS_BUSY_MESSAGE },
    });
    expect(failure?.message).toBe(SESSIONS_BUSY_MESSAGE);
    const waited = doubles.openAttempts.at(-1)! - doubles.openAttempts[0]!;
    expect(waited).toBeGreaterThan(4.9 * 60_000);
    expect(waited).toBeLessThanOrEqual(5 * 60_000);
    expect(doubles.openAttempts.length).toBeLessThan(70);
    expect(doubles.closed).toBe(0);
  });
});
