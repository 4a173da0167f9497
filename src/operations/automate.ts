import type { FieldType } from '../events/automate';
import type { ActivityTimeouts } from '../config/timeouts';

/**
 * Automate (spec 2.9-2.11, 6.1): what the API accepts, what the agent loop decides, and what
 * the browser-session activities take and answer. Imported by workflow code: nothing here
 * touches Node.
 */

/** Spec 2.9, after validation and defaults. */
export interface AutomateRequest {
  task: string;
  url?: string;
  data?: Record<string, unknown>;
  guardrails?: string;
  maxIterations: number;
  maxValidationAttempts: number;
  /** `geo_target.country`, upper case: the session's traffic goes through that country's proxy. */
  country?: string;
  interactive: boolean;
  trustedHostnames: string[];
  unsafeMode: boolean;
}

export interface AutomateInput {
  request: AutomateRequest;
  queues: { browser: string; model: string };
  /** How long an interactive input request waits for its answer (spec 8: 2 minutes by default). */
  inputTimeoutMs: number;
  /** Take a screenshot at each observation, and send it as an event when it is small. */
  screenshots: boolean;
  timeouts?: ActivityTimeouts;
}

/** One step the agent decides on (the model's answer, checked and typed). */
export type AgentAction =
  | { type: 'click'; ref: string }
  /** `dataPath` names a leaf of the request's `data` (`user.email`) the value came from. */
  | { type: 'fill'; ref: string; value: string; dataPath?: string }
  | { type: 'select'; ref: string; value: string }
  | { type: 'press'; key: string; ref?: string }
  | { type: 'scroll'; direction: 'up' | 'down' }
  | { type: 'navigate'; url: string }
  | { type: 'wait'; seconds: number }
  | { type: 'extract'; instruction: string }
  /** Interactive mode only: ask the caller for the fields of the form around `ref`. */
  | { type: 'request_input'; ref: string; description: string }
  | { type: 'done'; answer: string }
  | { type: 'abort'; reason: string };

/** The actions a browser session performs; the others are the workflow's own. */
export type BrowserAction =
  | Extract<AgentAction, { type: 'click' | 'select' | 'press' | 'scroll' | 'navigate' }>
  /**
   * `credential`: the value is a credential of the request's `data` by its key path (`user.otp`)
   * or its looks, whatever field it goes into: it may go to trusted hosts only.
   */
  | { type: 'fill'; ref: string; value: string; source: ValueSource; credential: boolean };

/**
 * Where a typed value came from: the request's `data`, the caller's answer to an input request
 * (never shown to the model), or the model itself (so, possibly, page content).
 */
export type ValueSource = 'data' | 'caller' | 'model';

/** What the action firewall needs to decide (see src/automate/firewall.ts). */
export interface FirewallPolicy {
  /** False with `unsafe_mode`: every action is allowed. */
  enabled: boolean;
  /** Hosts (exact, lower case) where fills and submissions are not checked. */
  trustedHostnames: string[];
  /**
   * Sensitive values the caller gave (from `data` and input answers): a navigation that would
   * carry one of them to an untrusted host is refused.
   */
  protectedValues: string[];
}

/**
 * What a session step is told of the firewall: its protected values the session holds, told
 * once when it opens (`openSession`'s `guarded`) and adding the caller's answers as it types them.
 */
export type FirewallRules = Omit<FirewallPolicy, 'protectedValues'>;

/** The DOM facts of a form field the firewall and the input requests read. */
export interface FieldFacts {
  tag: string;
  type?: string;
  autocomplete?: string;
  name?: string;
  id?: string;
  label?: string;
  placeholder?: string;
  /** The form the field belongs to, if any. */
  form?: { method: 'get' | 'post'; action: string };
}

export interface Observation {
  url: string;
  title: string;
  /** Accessibility snapshot with a `[ref=eN]` on each element the agent can act on; bounded in size. */
  snapshot: string;
  /** The snapshot was cut to its bound. */
  truncated: boolean;
  /** A scaled JPEG (base64), present when asked for and small enough to travel as an event. */
  screenshot?: { image: string; bytes: number };
  /** The size of the screenshot taken, when one was taken. */
  screenshotBytes?: number;
}

export interface ActionOutcome {
  success: boolean;
  /** Why it failed, or why the firewall refused it. */
  error?: string;
  /** The firewall refused the action (it was not performed). */
  blocked?: boolean;
  url: string;
  title: string;
  /** The action led to another document. */
  navigated: boolean;
  /** The page after the action, when asked for: the next step's observation. */
  observation?: Observation;
}

/** A field of an input request (spec 6.1 `interactive:form_data:request`), with the rules its value must meet. */
export interface FormField {
  ref: string;
  label: string;
  fieldType: FieldType;
  required: boolean;
  description?: string;
  options?: string[];
  currentValue?: string;
  /** HTML constraints: checked before the values are typed, so a bad answer gets `fieldErrors`. */
  rules?: { pattern?: string; minLength?: number; maxLength?: number; min?: string; max?: string };
}

export interface FieldValue {
  ref: string;
  value: string;
}

/** The browser worker that holds a session, and the page it is on. */
export interface OpenedSession {
  /** The task queue only that worker polls: every later step of the session goes there. */
  queue: string;
  url: string;
  title: string;
  /** Why the start page did not load: the session is open all the same, and the agent hears it as a failed step. */
  startError?: string;
}

/** Activities on the shared browser queue: any browser worker may open a session. */
export interface SessionOpening {
  openSession(input: {
    sessionId: string;
    url?: string;
    country?: string;
    /** Closed by the worker when no step used it for this long. */
    idleMs: number;
    /**
     * Values the model must not read back, whatever field they go into: the credentials of
     * `data` and the caller's answers so far. The session hides them from everything it answers
     * with (snapshots, page text, addresses, titles, errors), once told, for its whole life.
     */
    hidden: string[];
    /** The firewall's protected values (`FirewallPolicy.protectedValues`), for the session's whole life. */
    guarded: string[];
  }): Promise<OpenedSession>;
}

/** Activities on the queue of the worker that holds the session (`OpenedSession.queue`). */
export interface SessionSteps {
  observePage(input: { sessionId: string; screenshot: boolean }): Promise<Observation>;
  performAction(input: {
    sessionId: string;
    action: BrowserAction;
    firewall: FirewallRules;
    /** Observe the page after the action, and answer with it. */
    observe?: { screenshot: boolean };
  }): Promise<ActionOutcome>;
  /** The page's text (Markdown), bounded, for an `extract` step. */
  readPageText(input: { sessionId: string }): Promise<{ url: string; title: string; text: string }>;
  /** The fields of the form around `ref` (or of the page) an input request asks for. */
  describeForm(input: { sessionId: string; ref: string }): Promise<{ fields: FormField[]; formDescription: string }>;
  /** Types the caller's answers: source `caller`. Fields that refuse a value come back in `fieldErrors`. */
  fillFields(input: {
    sessionId: string;
    values: FieldValue[];
    firewall: FirewallRules;
  }): Promise<{ fieldErrors: Record<string, string> }>;
  closeSession(input: { sessionId: string }): Promise<void>;
}

/** A session step failed because the session is gone (worker restarted, idle reaped): open a new one. */
export const SESSION_LOST = 'session_lost';

/** No browser worker had a session slot for this task now: the workflow waits its turn and asks again. */
export const SESSIONS_FULL = 'sessions_full';

/** What a task that waited longer than its bound for a browser session ends with. */
export const SESSIONS_BUSY_MESSAGE = 'no browser session became free in time; try again later';

/** A session step the page made impossible (its script held it past the bound): that step failed, the task goes on. */
export const STEP_FAILED = 'step_failed';
