import { patched, proxyActivities, sleep, uuid4 } from '@temporalio/workflow';
import { endings, TaskEnded } from '../automate/endings';
import { sessionsFull } from '../automate/failures';
import { automateOptions } from '../config/timeouts';
import type { AutomatePayloads, InIteration } from '../events/automate';
import type { AutomateInput, Observation, OpenedSession, SessionOpening, SessionSteps } from '../operations/automate';

/** New sessions after a lost one, before the task fails. */
const MAX_RECONNECTS = 3;

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

/** A session in hand: its steps run on the worker that holds it; `url` and `title` follow its page. */
export interface HeldSession {
  id: string;
  steps: SessionSteps;
  url: string;
  title: string;
}

/** What the session tells its task: events in the current iteration, and notes for the model. */
export interface SessionReport {
  emit<E extends keyof AutomatePayloads & string>(event: E, data: AutomatePayloads[E]): void;
  framed<D extends object>(data: D): InIteration & D;
  note(action: string, outcome: string): void;
  failedStep(action: string, error: string): void;
}

/**
 * The browser session of one Automate task: opened on whichever worker has room (waiting for a
 * free one), replaced at the last page when its worker is lost, closed at the end.
 */
export class TaskSession {
  private readonly opening;
  private session?: HeldSession;
  private reconnects = 0;

  /** `secrets.hidden` and `secrets.guarded` grow during the task; each session opened is told them all. */
  constructor(
    private readonly input: AutomateInput,
    private readonly secrets: { hidden: string[]; guarded: string[] },
    private readonly report: SessionReport,
  ) {
    this.opening = proxyActivities<SessionOpening>({
      taskQueue: input.queues.browser,
      ...automateOptions(input.timeouts).opening,
    });
  }

  get held(): HeldSession {
    return this.session!;
  }

  async open(url: string | undefined): Promise<void> {
    const id = uuid4();
    const opened = await this.waitingForSession({
      sessionId: id,
      ...(url ? { url } : {}),
      ...(this.input.request.country ? { country: this.input.request.country } : {}),
      // Outlives an input request's wait, so a session is not reaped while the caller types.
      idleMs: this.input.inputTimeoutMs + 5 * 60_000,
      hidden: this.secrets.hidden,
      guarded: this.secrets.guarded,
    });
    const steps = proxyActivities<SessionSteps>({
      taskQueue: opened.queue,
      ...automateOptions(this.input.timeouts).step,
    });
    this.session = { id, steps, url: opened.url, title: opened.title };
    this.report.emit(
      'cdp:endpoint_connected',
      this.report.framed({ endpointIndex: this.reconnects, total: MAX_RECONNECTS + 1 }),
    );
    if (opened.url && opened.url !== 'about:blank')
      this.report.emit('browser:navigated', this.report.framed({ title: opened.title, url: opened.url }));
    if (opened.startError) {
      this.report.emit(
        'agent:status',
        this.report.framed({ message: `The start page did not load: ${opened.startError}` }),
      );
      this.report.failedStep('open the start page', opened.startError);
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
        if (Date.now() + delay > giveUpAt) throw new TaskEnded(endings.sessionsBusy());
        if (delay === SESSION_ASK_MS.first)
          this.report.emit(
            'agent:status',
            this.report.framed({ message: 'Every browser session is in use; waiting for one' }),
          );
        await sleep(delay);
      }
    }
  }

  /** The session's worker is gone: a new session on another worker, at the last page. */
  async reconnect(): Promise<void> {
    const lastUrl = this.session?.url;
    this.session = undefined;
    if (++this.reconnects > MAX_RECONNECTS) throw new Error('the browser session was lost too many times');
    this.report.emit(
      'cdp:endpoint_cycle',
      this.report.framed({ attempt: this.reconnects, total: MAX_RECONNECTS, error: 'the browser session was lost' }),
    );
    await this.open(lastUrl && lastUrl !== 'about:blank' ? lastUrl : this.input.request.url);
    const startingUrl = this.held.url;
    this.report.emit(
      'browser:reconnected',
      this.report.framed({ startingUrl, endpointIndex: this.reconnects, total: MAX_RECONNECTS + 1 }),
    );
    this.report.note('browser', `the browser restarted at ${startingUrl}; earlier page state (forms) is gone`);
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    try {
      await session.steps.closeSession({ sessionId: session.id });
    } catch {
      // The worker is gone, and its session with it; an idle one would be reaped there.
    }
  }

  /** An observation of the page: where the session is, and its screenshot for the stream. */
  async observe(screenshot: boolean): Promise<Observation> {
    const session = this.held;
    const page = await session.steps.observePage({ sessionId: session.id, screenshot });
    this.moved(page.url, page.title, false);
    if (page.screenshotBytes !== undefined) {
      this.report.emit(
        'browser:screenshot_captured',
        this.report.framed({ format: 'jpeg', size: page.screenshotBytes }),
      );
      if (page.screenshot)
        this.report.emit(
          'browser:screenshot_captured_image',
          this.report.framed({ image: page.screenshot.image, mediaType: 'image/jpeg' }),
        );
    }
    return page;
  }

  /** Keeps the session's page up to date, and tells the stream when it changed. */
  moved(url: string, title: string, navigated: boolean): void {
    const session = this.held;
    const changed = url !== session.url;
    session.url = url;
    session.title = title;
    if (navigated || changed) this.report.emit('browser:navigated', this.report.framed({ title, url }));
  }
}
