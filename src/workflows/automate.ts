import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log as workflowLog,
  patched,
  proxyActivities,
  sleep,
  TimeoutFailure,
  upsertMemo,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { AutomateModelActivities, AutomateReply } from '../activities/automateModel';
import type { UnusableAnswer } from '../model/structuredAsk';
import { leaves, maskedData, pathOfValue, valueAt } from '../automate/dataPaths';
import { fieldSensitivity, protectedValuesOf, valueSensitivity } from '../automate/firewall';
import { MODEL_FAILED } from '../errors';
import type { AutomateErrorCode, AutomateEvents } from '../events/automate';
import { EventLog } from '../events/eventLog';
import { automateStream } from '../events/streams';
import { addUsage, noUsage } from '../model/usage';
import { failureText } from '../temporal/failureText';
import { automateOptions } from '../config/timeouts';
import {
  SESSION_LOST,
  SESSIONS_BUSY_MESSAGE,
  SESSIONS_FULL,
  STEP_FAILED,
  type AgentAction,
  type AutomateInput,
  type BrowserAction,
  type FirewallRules,
  type Observation,
  type OpenedSession,
  type SessionOpening,
  type SessionSteps,
} from '../operations/automate';
import type { Decision, PageView, StepNote, TaskPlan } from '../prompts/automate.v1';
import { InputRequests } from './inputRequests';
import { recordingOutcome } from './outcome';

/** Failed actions in a row after which the agent gives up (MAX_ERRORS). */
const MAX_CONSECUTIVE_ERRORS = 5;
/** New sessions after a lost one, before the task fails. */
const MAX_RECONNECTS = 3;
/** Earlier steps each decision is reminded of. */
const STEPS_SHOWN = 30;
/** Answers to one input request that broke the fields' rules, before the agent goes on without. */
const INPUT_ROUNDS = 3;
const MAX_WAIT_SECONDS = 10;

/**
 * How long a task waits for a browser session while every one is in use. It asks again after 1 s,
 * then 2, 4, and every 5 s: each worker keeps a refused task's place in line while it keeps
 * asking (src/browser/sessionAdmission.ts), and hands slots out by fair shares across
 * organizations.
 */
const SESSION_WAIT_MS = 5 * 60_000;
const SESSION_ASK_MS = { first: 1_000, max: 5_000 };

/** Runs that began before tasks waited for a session failed at the first refusal Temporal's retries did not cure. */
export const SESSION_QUEUE_PATCH = 'session-queue';

/** How a task ended: the `complete` event's success and error. */
interface Ending {
  success: boolean;
  finalAnswer: string | null;
  /** `shown` is what the caller reads when a fixed sentence of the workflow's says more than the code's. */
  error?: { code: AutomateErrorCode; message: string; shown?: string };
}

/**
 * What the caller reads in `complete.error.message`, by code: fixed text, as research's `error`
 * event has. The ending's own message can hold internals (a model client's or a browser worker's
 * words); it goes to the log and, for a failing code, to the run's failure in its history.
 */
const ENDING_MESSAGES: Record<AutomateErrorCode, string> = {
  TASK_ABORTED: 'the agent gave the task up; its reason is the final answer',
  MAX_ITERATIONS: 'the task was not done within maxIterations steps',
  MAX_ERRORS: 'too many steps failed in a row',
  TASK_FAILED: 'the task failed',
};

/** An ending that fails the run too (for operators: a failed run can be found, replayed, retried). */
const FAILING_CODES: ReadonlySet<AutomateErrorCode> = new Set(['MAX_ERRORS', 'TASK_FAILED']);

class TaskEnded extends Error {
  constructor(readonly ending: Ending) {
    super(ending.error?.message ?? 'task ended');
  }
}

/**
 * What an event says of a failed model call: fixed words by kind, never the model client's own
 * text (addresses, status lines, a provider's message). The cause goes to the log.
 */
function modelFailureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  workflowLog.warn('model call failed', { cause: failureText(err) });
  if (unusableAnswer(err)) return "the model's answer did not have the expected shape";
  if (cause instanceof TimeoutFailure) return 'the model did not answer in time';
  if (cause instanceof ApplicationFailure && cause.type === MODEL_FAILED) return 'the model refused the request';
  return 'the model could not be reached';
}

/** The session's worker is gone (or restarted, or reaped the session): a new session is needed. */
/** The activity's own failure, when `err` is one an activity failed with. */
function activityCause(err: unknown): ApplicationFailure | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : undefined;
}

function sessionLost(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  return err.cause instanceof TimeoutFailure || activityCause(err)?.type === SESSION_LOST;
}

function sessionsFull(err: unknown): boolean {
  return activityCause(err)?.type === SESSIONS_FULL;
}

/** Why the page made a session step impossible, when that is why it failed: the task goes on. */
function stepFailure(err: unknown): string | undefined {
  const cause = activityCause(err);
  return cause?.type === STEP_FAILED ? cause.message : undefined;
}

/**
 * Automate (spec 2.9, 6.1): a browser agent. It opens a browser session on one worker, plans,
 * then loops: observe the page, decide one action (a model call), act, and tell the stream.
 * A `done` answer is validated by a second model call before the task completes. Every step is
 * an activity; the session's steps run on the worker that holds it, and if that worker is lost
 * a new session on another worker resumes at the last URL (`browser:reconnected`).
 */
export async function automate(input: AutomateInput): Promise<void> {
  const log = new EventLog<AutomateEvents>(automateStream, input.stream);
  const requests = new InputRequests();
  await recordingOutcome(async () => {
    const ending = await log.run(() => new AutomateRun(input, log, requests).run());
    if (ending.error && FAILING_CODES.has(ending.error.code))
      throw ApplicationFailure.nonRetryable(ending.error.message, ending.error.code);
  });
}

class AutomateRun {
  private readonly model;
  private readonly opening;
  private session?: { id: string; steps: SessionSteps; url: string; title: string };
  private readonly firewall: FirewallRules;
  private readonly startTime = Date.now();
  private iterationId = 'setup';
  private iteration = 0;
  private actions = 0;
  private errorsInRow = 0;
  private reconnects = 0;
  private validations = 0;
  private feedback?: string;
  /** The page as the last action left it, observed with it: the next step starts from it. */
  private observed?: Observation;
  private plan: TaskPlan = { plan: '', successCriteria: '', actionItems: [] };
  private readonly steps: StepNote[] = [];
  private readonly extracted: string[] = [];
  private readonly usage = noUsage();
  private generations = 0;
  private generationErrors = 0;
  private readonly eventCounts: Record<string, number> = {};
  /** The caller's data as the model sees it: credentials masked. */
  private readonly shownData?: string;
  /** What the model must not read back from a page: the credentials of `data`, the caller's answers. */
  private readonly hidden: string[];
  /** What no address for an untrusted host may carry: the sensitive values of `data`, the caller's answers. */
  private readonly guarded: string[];

  constructor(
    private readonly input: AutomateInput,
    private readonly log: EventLog<AutomateEvents>,
    private readonly requests: InputRequests,
  ) {
    const options = automateOptions(input.timeouts);
    this.model = proxyActivities<AutomateModelActivities>({ taskQueue: input.queues.model, ...options.model });
    this.opening = proxyActivities<SessionOpening>({ taskQueue: input.queues.browser, ...options.opening });
    const { request } = input;
    this.firewall = {
      enabled: !request.unsafeMode,
      trustedHostnames: request.trustedHostnames.map((host) => host.toLowerCase()),
    };
    this.guarded = protectedValuesOf(request.data ?? {});
    this.shownData = maskedData(request.data, (path, value) => isCredential(path, value));
    this.hidden = leaves(request.data)
      .map(({ path, value }) => ({ path, value: String(value) }))
      .filter(({ path, value }) => isCredential(path, value))
      .map(({ value }) => value);
  }

  private emit<E extends keyof AutomateEvents & string>(
    event: E,
    data: Omit<AutomateEvents[E], 'iterationId' | 'timestamp'>,
  ): void {
    this.eventCounts[event] = (this.eventCounts[event] ?? 0) + 1;
    const framed = ['start', 'complete', 'done', 'error', 'task:trace_context'].includes(event)
      ? data
      : { iterationId: this.iterationId, timestamp: Date.now(), ...data };
    this.log.emit(event, framed as AutomateEvents[E]);
  }

  async run(): Promise<Ending> {
    const { request } = this.input;
    this.emit('start', { task: request.task, url: request.url ?? '' });
    this.emit('task:trace_context', { traceId: workflowInfo().runId });
    let ending: Ending;
    try {
      ending = await this.carryOut();
    } catch (err) {
      if (err instanceof TaskEnded) ending = err.ending;
      else if (isCancellation(err)) throw err;
      else ending = { success: false, finalAnswer: null, error: { code: 'TASK_FAILED', message: failureText(err) } };
    } finally {
      await CancellationScope.nonCancellable(() => this.closeSession());
    }
    this.finish(ending);
    return ending;
  }

  private async carryOut(): Promise<Ending> {
    const { request } = this.input;
    this.emit('task:setup', {
      task: request.task,
      browserName: 'chromium',
      ...(request.url ? { url: request.url } : {}),
      ...(this.shownData ? { data: JSON.parse(this.shownData) as unknown } : {}),
      ...(request.guardrails ? { guardrails: request.guardrails } : {}),
      ...(request.country ? { proxy: request.country } : {}),
      vision: this.input.screenshots,
    });
    await this.openSession(request.url);
    const page = await this.observe(false);
    this.plan = await this.ask('planning the task', () =>
      this.model.planTask({ ...this.context(), page: view(page), now: Date.now() }),
    );
    this.emit('task:started', {
      task: request.task,
      url: this.session!.url,
      plan: this.plan.plan,
      successCriteria: this.plan.successCriteria,
      actionItems: this.plan.actionItems,
    });
    for (this.iteration = 1; this.iteration <= request.maxIterations; this.iteration++) {
      this.iterationId = `iteration-${this.iteration}`;
      this.emit('agent:step', { currentIteration: this.iteration });
      const ending = await this.step();
      this.emit('task:metrics_incremental', this.metrics());
      if (ending) return ending;
    }
    return {
      success: false,
      finalAnswer: null,
      error: { code: 'MAX_ITERATIONS', message: `the task was not done within ${request.maxIterations} iterations` },
    };
  }

  /** One iteration: observe, decide, act. Returns how the task ended, if it did. */
  private async step(): Promise<Ending | undefined> {
    let page: Observation;
    try {
      page = this.observed ?? (await this.observe(this.input.screenshots));
      this.observed = undefined;
    } catch (err) {
      if (!sessionLost(err)) throw err;
      await this.reconnect();
      return undefined;
    }
    this.emit('agent:processing', { operation: 'Deciding the next action', hasScreenshot: !!page.screenshot });
    let decision: Decision;
    try {
      decision = await this.ask('deciding the next action', () =>
        this.model.decideAction({
          ...this.context(),
          plan: this.plan.plan,
          successCriteria: this.plan.successCriteria,
          steps: this.steps.slice(-STEPS_SHOWN),
          page: view(page),
          extracted: this.extracted,
          ...(this.feedback ? { feedback: this.feedback } : {}),
          interactive: this.input.request.interactive,
          iteration: this.iteration,
          maxIterations: this.input.request.maxIterations,
        }),
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      this.failedStep(`the model gave no usable action: ${failureText(err)}`);
      return undefined;
    }
    this.emit('agent:reasoned', { reasoning: decision.reasoning });
    const action = this.actionOf(decision);
    if (typeof action === 'string') {
      this.emit('agent:action', { action: decision.action, ref: decision.ref, value: null });
      this.failedStep(action, decision.action);
      return undefined;
    }
    this.emit('agent:action', { action: action.type, ...shownArguments(action) });
    try {
      return await this.act(action);
    } catch (err) {
      if (!sessionLost(err)) throw err;
      await this.reconnect();
      return undefined;
    }
  }

  private async act(action: AgentAction): Promise<Ending | undefined> {
    switch (action.type) {
      case 'done':
        return this.validate(action.answer);
      case 'abort':
        this.emit('task:aborted', { reason: action.reason, finalAnswer: action.reason });
        return { success: false, finalAnswer: action.reason, error: { code: 'TASK_ABORTED', message: action.reason } };
      case 'wait':
        this.emit('agent:waiting', { seconds: action.seconds });
        await sleep(action.seconds * 1000);
        this.note('wait', `waited ${action.seconds} s`);
        return undefined;
      case 'extract':
        await this.extract(action.instruction);
        return undefined;
      case 'request_input':
        await this.requestInput(action.ref, action.description);
        return undefined;
      case 'fill':
        return this.browse(this.fillOf(action));
      default:
        return this.browse(action);
    }
  }

  private async browse(action: BrowserAction | string): Promise<undefined> {
    if (typeof action === 'string') {
      this.failedStep(action);
      return undefined;
    }
    const shown = shownArguments(action);
    this.emit('browser:action_started', { action: action.type, ...shown });
    this.actions++;
    const outcome = await this.session!.steps.performAction({
      sessionId: this.session!.id,
      action,
      firewall: this.firewall,
    });
    this.emit('browser:action_completed', {
      success: outcome.success,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    this.moved(outcome.url, outcome.title, outcome.navigated);
    const described = `${action.type}${shown.ref ? ` ${shown.ref}` : ''}${shown.value ? ` "${shown.value}"` : ''}`;
    if (outcome.blocked) this.note(described, `refused: ${outcome.error}`);
    else if (outcome.success) {
      this.errorsInRow = 0;
      this.note(described, outcome.navigated ? `now on ${outcome.title || outcome.url}` : 'done');
    } else this.failedStep(outcome.error ?? 'the action failed', described);
    return undefined;
  }

  /** A fill's value from the data (named or copied), or the model's own, with where it came from. */
  private fillOf(action: Extract<AgentAction, { type: 'fill' }>): BrowserAction | string {
    const data = this.input.request.data;
    if (action.dataPath) {
      const value = valueAt(data, action.dataPath);
      if (value === undefined) return `the data holds nothing at ${action.dataPath}`;
      return { type: 'fill', ref: action.ref, value, source: 'data', credential: isCredential(action.dataPath, value) };
    }
    const path = pathOfValue(data, action.value);
    if (path === undefined)
      return { type: 'fill', ref: action.ref, value: action.value, source: 'model', credential: false };
    return {
      type: 'fill',
      ref: action.ref,
      value: action.value,
      source: 'data',
      credential: isCredential(path, action.value),
    };
  }

  private async extract(instruction: string): Promise<void> {
    let page;
    try {
      page = await this.session!.steps.readPageText({ sessionId: this.session!.id });
    } catch (err) {
      const failure = stepFailure(err);
      if (failure === undefined) throw err;
      this.emit('agent:status', { message: `The page could not be read: ${failure}` });
      this.failedStep(failure, `extract "${instruction}"`);
      return;
    }
    const extraction = await this.ask('extracting data', () =>
      this.model.extractData({ task: this.input.request.task, instruction, page }),
    );
    this.extracted.push(extraction.json);
    this.emit('agent:extracted', { extractedData: extraction.json });
    this.errorsInRow = 0;
    this.note(`extract "${instruction}"`, `extracted ${extraction.json.length} characters`);
  }

  /** A done answer: validated, and accepted or sent back with the reviewer's feedback. */
  private async validate(answer: string): Promise<Ending | undefined> {
    const { maxValidationAttempts } = this.input.request;
    this.validations++;
    const page = this.session!;
    try {
      const validation = await this.ask('validating the answer', () =>
        this.model.validateCompletion({
          ...this.context(),
          successCriteria: this.plan.successCriteria,
          answer,
          steps: this.steps.slice(-STEPS_SHOWN),
          extracted: this.extracted,
          page: { url: page.url, title: page.title },
        }),
      );
      this.emit('task:validated', {
        completionQuality: validation.completionQuality,
        finalAnswer: answer,
        observation: validation.observation,
        ...(validation.feedback ? { feedback: validation.feedback } : {}),
      });
      if (validation.completionQuality === 'complete' || validation.completionQuality === 'excellent')
        return { success: true, finalAnswer: answer };
      this.feedback = validation.feedback || validation.observation;
      this.note('done', `answer not accepted (${validation.completionQuality}): ${this.feedback}`);
    } catch (err) {
      if (isCancellation(err)) throw err;
      const unusable = unusableAnswer(err);
      this.emit('task:validation_error', {
        errors: unusable?.errors ?? [modelFailureMessage(err)],
        rawResponse: unusable?.rawResponse ?? null,
        retryCount: this.validations,
      });
      this.note('done', 'the answer could not be validated');
    }
    if (this.validations < maxValidationAttempts) return undefined;
    return {
      success: false,
      finalAnswer: answer,
      error: {
        code: 'TASK_FAILED',
        message: `the answer did not pass validation in ${maxValidationAttempts} attempt(s)`,
      },
    };
  }

  /**
   * Asks the caller for the fields of a form (interactive mode): waits for the answer until the
   * request expires, asks again while answers break the fields' rules, and has the session type
   * the values without the model ever seeing them.
   */
  private async requestInput(ref: string, description: string): Promise<void> {
    const session = this.session!;
    const { fields, formDescription } = await session.steps.describeForm({ sessionId: session.id, ref });
    if (fields.length === 0) {
      this.failedStep(`there is no form field around ${ref} to ask for`, 'request_input');
      return;
    }
    let fieldErrors: Record<string, string> | undefined;
    for (let round = 0; round < INPUT_ROUNDS; round++) {
      const requestId = this.requests.open();
      const request = {
        requestId,
        fields,
        formDescription: formDescription || description,
        pageTitle: session.title,
        pageUrl: session.url,
      };
      if (fieldErrors) this.emit('interactive:form_data:error', { ...request, fieldErrors });
      else this.emit('interactive:form_data:request', request);
      const answer = await this.requests.answer(this.input.inputTimeoutMs);
      if (!answer) {
        this.emit('agent:status', { message: 'The input request expired; going on without it' });
        this.note('request_input', 'the user did not answer in time: go on without these fields');
        return;
      }
      if (answer.cancelled) {
        this.emit('agent:status', { message: 'The user declined the input request' });
        this.note('request_input', 'the user declined: go on without these fields');
        return;
      }
      const values = answer.fields.filter((entry) => entry.value !== '');
      // The session guards and hides what the caller typed as it types it; a session opened
      // after this one is told with the rest.
      this.guarded.push(...values.map((entry) => entry.value).filter((value) => value.length >= 4));
      this.hidden.push(...values.map((entry) => entry.value));
      // The session checks each value against its field's rules before typing it.
      fieldErrors = (await session.steps.fillFields({ sessionId: session.id, values, firewall: this.firewall }))
        .fieldErrors;
      if (Object.keys(fieldErrors).length === 0) {
        const typed = new Set(values.map((entry) => entry.ref));
        const labels = fields.filter((field) => typed.has(field.ref)).map((field) => field.label || field.ref);
        this.errorsInRow = 0;
        this.note('request_input', `the user filled: ${labels.join(', ')} (values hidden)`);
        return;
      }
    }
    this.note('request_input', 'the user gave no valid values: go on without these fields');
  }

  private async openSession(url: string | undefined): Promise<void> {
    const id = uuid4();
    const opened = await this.waitingForSession({
      sessionId: id,
      ...(url ? { url } : {}),
      ...(this.input.request.country ? { country: this.input.request.country } : {}),
      // Outlives an input request's wait, so a session is not reaped while the caller types.
      idleMs: this.input.inputTimeoutMs + 5 * 60_000,
      hidden: this.hidden,
      guarded: this.guarded,
    });
    const steps = proxyActivities<SessionSteps>({
      taskQueue: opened.queue,
      ...automateOptions(this.input.timeouts).step,
    });
    this.session = { id, steps, url: opened.url, title: opened.title };
    this.emit('cdp:endpoint_connected', { endpointIndex: this.reconnects, total: MAX_RECONNECTS + 1 });
    if (opened.url && opened.url !== 'about:blank')
      this.emit('browser:navigated', { title: opened.title, url: opened.url });
    if (opened.startError) {
      this.emit('agent:status', { message: `The start page did not load: ${opened.startError}` });
      this.failedStep(opened.startError, 'open the start page');
    }
  }

  /** Opens the session, waiting up to SESSION_WAIT_MS for a free one; then the task ends with the fixed message. */
  private async waitingForSession(request: Parameters<SessionOpening['openSession']>[0]): Promise<OpenedSession> {
    const giveUpAt = Date.now() + SESSION_WAIT_MS;
    for (let delay = SESSION_ASK_MS.first; ; delay = Math.min(2 * delay, SESSION_ASK_MS.max)) {
      try {
        return await this.opening.openSession(request);
      } catch (err) {
        if (!sessionsFull(err) || !patched(SESSION_QUEUE_PATCH)) throw err;
        if (Date.now() + delay > giveUpAt)
          throw new TaskEnded({
            success: false,
            finalAnswer: null,
            error: { code: 'TASK_FAILED', message: SESSIONS_BUSY_MESSAGE, shown: SESSIONS_BUSY_MESSAGE },
          });
        if (delay === SESSION_ASK_MS.first)
          this.emit('agent:status', { message: 'Every browser session is in use; waiting for one' });
        await sleep(delay);
      }
    }
  }

  /** The session's worker is gone: a new session on another worker, at the last page. */
  private async reconnect(): Promise<void> {
    const lastUrl = this.session?.url;
    this.session = undefined;
    this.observed = undefined;
    if (++this.reconnects > MAX_RECONNECTS) throw new Error('the browser session was lost too many times');
    this.emit('cdp:endpoint_cycle', {
      attempt: this.reconnects,
      total: MAX_RECONNECTS,
      error: 'the browser session was lost',
    });
    await this.openSession(lastUrl && lastUrl !== 'about:blank' ? lastUrl : this.input.request.url);
    this.emit('browser:reconnected', {
      startingUrl: this.session!.url,
      endpointIndex: this.reconnects,
      total: MAX_RECONNECTS + 1,
    });
    this.note('browser', `the browser restarted at ${this.session!.url}; earlier page state (forms) is gone`);
  }

  private async closeSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    try {
      await session.steps.closeSession({ sessionId: session.id });
    } catch {
      // The worker is gone, and its session with it; an idle one would be reaped there.
    }
  }

  private async observe(screenshot: boolean): Promise<Observation> {
    const session = this.session!;
    return this.seen(await session.steps.observePage({ sessionId: session.id, screenshot }));
  }

  /** An observation of the page: where the session is, and its screenshot for the stream. */
  private seen(page: Observation): Observation {
    this.moved(page.url, page.title, false);
    if (page.screenshotBytes !== undefined) {
      this.emit('browser:screenshot_captured', { format: 'jpeg', size: page.screenshotBytes });
      if (page.screenshot)
        this.emit('browser:screenshot_captured_image', { image: page.screenshot.image, mediaType: 'image/jpeg' });
    }
    return page;
  }

  /** Keeps the session's page up to date, and tells the stream when it changed. */
  private moved(url: string, title: string, navigated: boolean): void {
    const session = this.session!;
    const changed = url !== session.url;
    session.url = url;
    session.title = title;
    if (navigated || changed) this.emit('browser:navigated', { title, url });
  }

  /** A model step, reported as an `ai:generation` (or `ai:generation:error`) event. */
  private async ask<T>(what: string, call: () => Promise<AutomateReply<T>>): Promise<T> {
    try {
      const reply = await call();
      this.generations++;
      addUsage(this.usage, reply.usage);
      this.emit('ai:generation', {
        prompt: reply.prompt,
        schema: what,
        finishReason: 'stop',
        usage: {
          inputTokens: reply.usage.prompt,
          outputTokens: reply.usage.completion,
          totalTokens: reply.usage.total,
        },
        object: reply.value,
      });
      return reply.value;
    } catch (err) {
      if (isCancellation(err)) throw err;
      this.generationErrors++;
      this.emit('ai:generation:error', { error: modelFailureMessage(err), prompt: what, schema: what });
      throw err;
    }
  }

  private actionOf(decision: Decision): AgentAction | string {
    const need = (field: keyof Decision) => `the ${decision.action} action needs a ${field}`;
    const { ref, value, dataPath, key, url, seconds, direction, text } = decision;
    switch (decision.action) {
      case 'click':
        return ref ? { type: 'click', ref } : need('ref');
      case 'fill':
        if (!ref) return need('ref');
        if (dataPath) return { type: 'fill', ref, value: '', dataPath };
        return value !== null ? { type: 'fill', ref, value } : need('value');
      case 'select':
        return ref && value !== null ? { type: 'select', ref, value } : need(ref ? 'value' : 'ref');
      case 'press':
        return key ? { type: 'press', key, ...(ref ? { ref } : {}) } : need('key');
      case 'scroll':
        return { type: 'scroll', direction: direction ?? 'down' };
      case 'navigate':
        return url ? { type: 'navigate', url } : need('url');
      case 'wait':
        return { type: 'wait', seconds: Math.max(0, Math.min(MAX_WAIT_SECONDS, seconds ?? 1)) };
      case 'extract':
        return { type: 'extract', instruction: text || this.input.request.task };
      case 'request_input':
        if (!this.input.request.interactive) return 'input requests need interactive mode';
        return ref ? { type: 'request_input', ref, description: text ?? '' } : need('ref');
      case 'done':
        return { type: 'done', answer: text ?? '' };
      case 'abort':
        return { type: 'abort', reason: text || 'the agent gave up' };
    }
  }

  private context() {
    const { task, url, guardrails } = this.input.request;
    return {
      task,
      ...(url ? { startUrl: url } : {}),
      ...(this.shownData ? { data: this.shownData } : {}),
      ...(guardrails ? { guardrails } : {}),
    };
  }

  private note(action: string, outcome: string): void {
    this.steps.push({ iteration: this.iteration, action, outcome });
  }

  /** A step that failed: noted for the model, and counted towards MAX_ERRORS. */
  private failedStep(error: string, action = 'step'): void {
    this.note(action, `failed: ${error}`);
    if (++this.errorsInRow >= MAX_CONSECUTIVE_ERRORS)
      throw new TaskEnded({
        success: false,
        finalAnswer: null,
        error: { code: 'MAX_ERRORS', message: `${this.errorsInRow} steps failed in a row; the last: ${error}` },
      });
  }

  private metrics(): AutomateEvents['task:metrics'] {
    return {
      iterationId: this.iterationId,
      timestamp: Date.now(),
      stepCount: this.iteration,
      aiGenerationCount: this.generations,
      aiGenerationErrorCount: this.generationErrors,
      totalInputTokens: this.usage.prompt,
      totalOutputTokens: this.usage.completion,
      eventCounts: { ...this.eventCounts },
    };
  }

  private finish(ending: Ending): void {
    this.iterationId = 'end';
    const endTime = Date.now();
    this.emit('task:completed', { finalAnswer: ending.finalAnswer, success: ending.success });
    this.emit('task:metrics', this.metrics());
    this.emit('complete', {
      success: ending.success,
      finalAnswer: ending.finalAnswer,
      stats: {
        iterations: Math.min(this.iteration, this.input.request.maxIterations),
        actions: this.actions,
        durationMs: endTime - this.startTime,
        startTime: this.startTime,
        endTime,
      },
      ...(ending.error
        ? { error: { code: ending.error.code, message: ending.error.shown ?? ENDING_MESSAGES[ending.error.code] } }
        : {}),
    });
    if (ending.error) workflowLog.warn('task ended without success', { ...ending.error });
    this.emit('done', {});
    upsertMemo({ usage: this.usage });
  }
}

function view(page: Observation): PageView {
  return { url: page.url, title: page.title, snapshot: page.snapshot, truncated: page.truncated };
}

/** What events show of an action's arguments: a value from the data by its path, never a secret. */
function shownArguments(action: AgentAction | BrowserAction): { ref: string | null; value: string | null } {
  const ref = 'ref' in action && action.ref !== undefined ? action.ref : null;
  switch (action.type) {
    case 'fill':
      if ('dataPath' in action && action.dataPath) return { ref, value: `data.${action.dataPath}` };
      if ('source' in action && action.source === 'data') return { ref, value: '(from data)' };
      return { ref, value: action.value };
    case 'select':
      return { ref, value: action.value };
    case 'press':
      return { ref, value: action.key };
    case 'navigate':
      return { ref, value: action.url };
    case 'scroll':
      return { ref, value: action.direction };
    default:
      return { ref, value: null };
  }
}

/** A data leaf the model must not see: a credential by its key or its value. */
function isCredential(path: string, value: string): boolean {
  const key = path.split('.').at(-1) ?? path;
  return (
    fieldSensitivity({ tag: 'input', name: key, label: path.replaceAll('.', ' ') }) === 'credential' ||
    valueSensitivity(value) === 'credential'
  );
}

function unusableAnswer(err: unknown): UnusableAnswer | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const details = cause.details?.[0] as UnusableAnswer | undefined;
  return details && Array.isArray(details.errors) ? details : undefined;
}
