import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log as workflowLog,
  proxyActivities,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { AutomateModelActivities, AutomateReply } from '../activities/automateModel';
import { actionOf, describedAction, fillOf, shownArguments } from '../automate/actions';
import { modelData } from '../automate/credentials';
import { completedData, completeEvent, endings, failsRun, TaskEnded, type Ending } from '../automate/endings';
import { generationData, setupData, withMessage } from '../automate/eventData';
import { modelFailureMessage, sessionLost, stepFailure, unusableAnswer } from '../automate/failures';
import { protectedValuesOf } from '../automate/firewall';
import { pageView, taskContext } from '../automate/modelInputs';
import { RunMetrics } from '../automate/runMetrics';
import { StepNotes } from '../automate/stepNotes';
import type { AutomateEvents, AutomatePayloads, InIteration } from '../events/automate';
import { EventLog } from '../events/eventLog';
import { automateStream } from '../events/streams';
import { failureText } from '../temporal/failureText';
import type { AgentAction, AutomateInput, BrowserAction, FirewallRules, Observation } from '../operations/automate';
import type { Decision, TaskContext, TaskPlan } from '../prompts/automate.v1';
import { automateOptions } from '../config/timeouts';
import { InputRequests } from './inputRequests';
import { FormInput } from './formInput';
import { TaskSession } from './taskSession';
import { recordingOutcome } from './outcome';

/** Failed actions in a row after which the agent gives up (MAX_ERRORS). */
const MAX_CONSECUTIVE_ERRORS = 5;
/** Earlier steps each decision is reminded of. */
const STEPS_SHOWN = 30;

/**
 * Automate (spec 2.9, 6.1): a browser agent. It opens a browser session on one worker, plans,
 * then loops: observe the page, decide one action (a model call), act, and tell the stream.
 * A `done` answer is validated by a second model call before the task completes. Every step is
 * an activity; the session's steps run on the worker that holds it, and if that worker is lost
 * a new session on another worker resumes at the last URL (`browser:reconnected`).
 */
export async function automate(input: AutomateInput): Promise<void> {
  const log = new EventLog<AutomateEvents>(automateStream);
  const requests = new InputRequests();
  await recordingOutcome(async () => {
    const ending = await log.run(() => new AutomateRun(input, log, requests).run());
    if (failsRun(ending)) throw ApplicationFailure.nonRetryable(ending.error.message, ending.error.code);
  });
}

class AutomateRun {
  private readonly model;
  private readonly session: TaskSession;
  private readonly form: FormInput;
  private readonly firewall: FirewallRules;
  private readonly startTime = Date.now();
  private iterationId = 'setup';
  private iteration = 0;
  private actions = 0;
  private validations = 0;
  private feedback?: string;
  private plan: TaskPlan = { plan: '', successCriteria: '', actionItems: [] };
  private readonly notes = new StepNotes(MAX_CONSECUTIVE_ERRORS);
  private readonly extracted: string[] = [];
  private readonly metrics = new RunMetrics();
  /** The caller's data as the model sees it: credentials masked. */
  private readonly shownData?: string;

  constructor(
    private readonly input: AutomateInput,
    private readonly log: EventLog<AutomateEvents>,
    requests: InputRequests,
  ) {
    const options = automateOptions(input.timeouts);
    this.model = proxyActivities<AutomateModelActivities>({ taskQueue: input.queues.model, ...options.model });
    const { request } = input;
    this.firewall = {
      enabled: !request.unsafeMode,
      trustedHostnames: request.trustedHostnames.map((host) => host.toLowerCase()),
    };
    const guarded = protectedValuesOf(request.data ?? {});
    const data = modelData(request.data);
    this.shownData = data.shown;
    const secrets = {
      /** What the model must not read back from a page: the credentials of `data`, the caller's answers. */
      hidden: data.credentials,
      /** What no address for an untrusted host may carry: the sensitive values of `data`, the caller's answers. */
      guarded,
    };
    this.session = new TaskSession(input, secrets, this);
    this.form = new FormInput(this, requests, secrets, this.firewall, input.inputTimeoutMs);
  }

  emit<E extends keyof AutomatePayloads & string>(event: E, data: AutomatePayloads[E]): void {
    this.metrics.counted(event);
    this.log.emit(event, withMessage(event, data));
  }

  /** A progress event's data: in the iteration it belongs to, at the time it is recorded. */
  framed<D extends object>(data: D): InIteration & D {
    return { iterationId: this.iterationId, timestamp: Date.now(), ...data };
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
      else ending = endings.failed(failureText(err));
    } finally {
      await CancellationScope.nonCancellable(() => this.session.close());
    }
    this.finish(ending);
    return ending;
  }

  private async carryOut(): Promise<Ending> {
    const { request } = this.input;
    this.emit('task:setup', this.framed(setupData(request, this.shownData, this.input.screenshots)));
    await this.session.open(request.url);
    const page = await this.session.observe(false);
    this.plan = await this.ask('planning the task', () =>
      this.model.planTask({ ...this.context(), page: pageView(page), now: Date.now() }),
    );
    const { plan, successCriteria, actionItems } = this.plan;
    this.emit(
      'task:started',
      this.framed({ task: request.task, url: this.session.held.url, plan, successCriteria, actionItems }),
    );
    for (this.iteration = 1; this.iteration <= request.maxIterations; this.iteration++) {
      this.iterationId = `iteration-${this.iteration}`;
      this.emit('agent:step', this.framed({ currentIteration: this.iteration }));
      const ending = await this.step();
      this.emit('task:metrics_incremental', this.framed(this.metrics.figures(this.iteration)));
      if (ending) return ending;
    }
    return endings.outOfIterations(request.maxIterations);
  }

  /** One iteration: observe, decide, act. Returns how the task ended, if it did. */
  private async step(): Promise<Ending | undefined> {
    let page: Observation;
    try {
      page = await this.session.observe(this.input.screenshots);
    } catch (err) {
      if (!sessionLost(err)) throw err;
      await this.session.reconnect();
      return undefined;
    }
    this.emit(
      'agent:processing',
      this.framed({ operation: 'Deciding the next action', hasScreenshot: !!page.screenshot }),
    );
    let decision: Decision;
    try {
      decision = await this.ask('deciding the next action', () =>
        this.model.decideAction({
          ...this.context(),
          plan: this.plan.plan,
          successCriteria: this.plan.successCriteria,
          steps: this.notes.recent(STEPS_SHOWN),
          page: pageView(page),
          extracted: this.extracted,
          ...(this.feedback ? { feedback: this.feedback } : {}),
          interactive: this.input.request.interactive,
          iteration: this.iteration,
          maxIterations: this.input.request.maxIterations,
        }),
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      this.failedStep('step', `the model gave no usable action: ${failureText(err)}`);
      return undefined;
    }
    this.emit('agent:reasoned', this.framed({ reasoning: decision.reasoning }));
    const action = actionOf(decision, this.input.request);
    if (typeof action === 'string') {
      this.emit('agent:action', this.framed({ action: decision.action, ref: decision.ref, value: null }));
      this.failedStep(decision.action, action);
      return undefined;
    }
    this.emit('agent:action', this.framed({ action: action.type, ...shownArguments(action) }));
    try {
      return await this.act(action);
    } catch (err) {
      if (!sessionLost(err)) throw err;
      await this.session.reconnect();
      return undefined;
    }
  }

  private async act(action: AgentAction): Promise<Ending | undefined> {
    switch (action.type) {
      case 'done':
        return this.validate(action.answer);
      case 'abort':
        this.emit('task:aborted', this.framed({ reason: action.reason, finalAnswer: action.reason }));
        return endings.aborted(action.reason);
      case 'wait':
        this.emit('agent:waiting', this.framed({ seconds: action.seconds }));
        await sleep(action.seconds * 1000);
        this.note('wait', `waited ${action.seconds} s`);
        return undefined;
      case 'extract':
        await this.extract(action.instruction);
        return undefined;
      case 'request_input':
        await this.form.ask(this.session.held, action.ref, action.description);
        return undefined;
      case 'fill':
        return this.browse(fillOf(action, this.input.request.data));
      default:
        return this.browse(action);
    }
  }

  private async browse(action: BrowserAction | string): Promise<undefined> {
    if (typeof action === 'string') {
      this.failedStep('step', action);
      return undefined;
    }
    const shown = shownArguments(action);
    this.emit('browser:action_started', this.framed({ action: action.type, ...shown }));
    this.actions++;
    const session = this.session.held;
    const outcome = await session.steps.performAction({ sessionId: session.id, action, firewall: this.firewall });
    this.emit(
      'browser:action_completed',
      this.framed({ success: outcome.success, ...(outcome.error ? { error: outcome.error } : {}) }),
    );
    this.session.moved(outcome.url, outcome.title, outcome.navigated);
    const described = describedAction(action.type, shown);
    if (outcome.blocked) this.note(described, `refused: ${outcome.error}`);
    else if (outcome.success)
      this.notes.succeeded(
        this.iteration,
        described,
        outcome.navigated ? `now on ${outcome.title || outcome.url}` : 'done',
      );
    else this.failedStep(described, outcome.error ?? 'the action failed');
    return undefined;
  }

  private async extract(instruction: string): Promise<void> {
    let page;
    try {
      const session = this.session.held;
      page = await session.steps.readPageText({ sessionId: session.id });
    } catch (err) {
      const failure = stepFailure(err);
      if (failure === undefined) throw err;
      this.emit('agent:status', this.framed({ message: `The page could not be read: ${failure}` }));
      this.failedStep(`extract "${instruction}"`, failure);
      return;
    }
    const extraction = await this.ask('extracting data', () =>
      this.model.extractData({ task: this.input.request.task, instruction, page }),
    );
    this.extracted.push(extraction.json);
    this.emit('agent:extracted', this.framed({ extractedData: extraction.json }));
    this.notes.succeeded(this.iteration, `extract "${instruction}"`, `extracted ${extraction.json.length} characters`);
  }

  /** A done answer: validated, and accepted or sent back with the reviewer's feedback. */
  private async validate(answer: string): Promise<Ending | undefined> {
    const { maxValidationAttempts } = this.input.request;
    this.validations++;
    const page = this.session.held;
    try {
      const validation = await this.ask('validating the answer', () =>
        this.model.validateCompletion({
          ...this.context(),
          successCriteria: this.plan.successCriteria,
          answer,
          steps: this.notes.recent(STEPS_SHOWN),
          extracted: this.extracted,
          page: { url: page.url, title: page.title },
        }),
      );
      const { completionQuality, observation, feedback } = validation;
      this.emit(
        'task:validated',
        this.framed({ completionQuality, finalAnswer: answer, observation, ...(feedback ? { feedback } : {}) }),
      );
      if (completionQuality === 'complete' || completionQuality === 'excellent') return endings.accepted(answer);
      this.feedback = feedback || observation;
      this.note('done', `answer not accepted (${completionQuality}): ${this.feedback}`);
    } catch (err) {
      if (isCancellation(err)) throw err;
      const unusable = unusableAnswer(err);
      this.emit(
        'task:validation_error',
        this.framed({
          errors: unusable?.errors ?? [this.modelFailure(err)],
          rawResponse: unusable?.rawResponse ?? null,
          retryCount: this.validations,
        }),
      );
      this.note('done', 'the answer could not be validated');
    }
    return this.validations < maxValidationAttempts ? undefined : endings.notValidated(answer, maxValidationAttempts);
  }

  /** A model step, reported as an `ai:generation` (or `ai:generation:error`) event. */
  private async ask<T>(what: string, call: () => Promise<AutomateReply<T>>): Promise<T> {
    try {
      const reply = await call();
      this.metrics.generated(reply.usage);
      this.emit('ai:generation', this.framed(generationData(what, reply)));
      return reply.value;
    } catch (err) {
      if (isCancellation(err)) throw err;
      this.metrics.generationFailed();
      this.emit('ai:generation:error', this.framed({ error: this.modelFailure(err), prompt: what, schema: what }));
      throw err;
    }
  }

  /** What the stream says of a failed model call; its cause goes to the log. */
  private modelFailure(err: unknown): string {
    workflowLog.warn('model call failed', { cause: failureText(err) });
    return modelFailureMessage(err);
  }

  private context(): TaskContext {
    return taskContext(this.input.request, this.shownData);
  }

  note(action: string, outcome: string): void {
    this.notes.note(this.iteration, action, outcome);
  }

  succeeded(action: string, outcome: string): void {
    this.notes.succeeded(this.iteration, action, outcome);
  }

  /** A step that failed: noted for the model, and counted towards MAX_ERRORS. */
  failedStep(action: string, error: string): void {
    this.notes.failed(this.iteration, action, error);
  }

  private finish(ending: Ending): void {
    this.iterationId = 'end';
    const endTime = Date.now();
    this.emit('task:completed', this.framed(completedData(ending)));
    this.emit('task:metrics', this.framed(this.metrics.figures(this.iteration)));
    const iterations = Math.min(this.iteration, this.input.request.maxIterations);
    const stats = {
      iterations,
      actions: this.actions,
      durationMs: endTime - this.startTime,
      startTime: this.startTime,
      endTime,
    };
    this.emit('complete', completeEvent(ending, stats));
    if (ending.error) workflowLog.warn('task ended without success', { ...ending.error });
    this.emit('done', {});
    upsertMemo({ usage: this.metrics.usage });
  }
}
