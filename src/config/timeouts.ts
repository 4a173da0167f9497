import type { ActivityOptions, Duration } from '@temporalio/common';
import type { Effort } from '../types';
import { ConfigError } from './configError';
import type { Config } from './settings';

/**
 * Every time limit of a run, from one place. Activity timeouts follow from the limits an attempt
 * must contain (a download or a render, then a reading), so a larger configured limit can never be
 * cut short by a literal somewhere else; the workflow deadlines follow the spec's example clients.
 */

export type RequestResponseOperation = 'extract-markdown' | 'extract-json' | 'generate-json';

/**
 * How long a run of each operation may take. Spec §8's example clients wait 180 s for
 * Extract Markdown and 300 s for the JSON operations; a run ends a little sooner, so even its
 * error reaches them.
 */
export const OPERATION_DEADLINE_MS: Record<RequestResponseOperation, number> = {
  'extract-markdown': 175_000,
  'extract-json': 295_000,
  'generate-json': 295_000,
};

/** How long a research run may take, by mode: one round of a few searches, or up to three. */
export const RESEARCH_DEADLINE_MS = { fast: 15 * 60_000, balanced: 45 * 60_000 } as const;

/**
 * How long an automate run may take: up to 100 steps, each a model call and a browser action,
 * and the callers' answers to input requests.
 */
export const AUTOMATE_DEADLINE_MS = 60 * 60_000;

/**
 * The `Retry-After` of a 503 for an unreachable Temporal: long enough for a restarted server
 * to come back, within the official clients' bound (they honour hints of at most 60 s).
 */
export const UNAVAILABLE_RETRY_AFTER_S = 10;

/**
 * How long a statement of the billing store (or a connection to it) may take before it fails: a
 * store that has stopped answering then costs a request a 500 within a few of these, not a hang.
 * Statements take milliseconds, but on a loaded machine a burst of them queued at the embedded
 * store (one at a time) can wait seconds, which must not turn into 500s. A charge that fails
 * starts no run.
 */
export const STORE_STATEMENT_TIMEOUT_MS = 10_000;

/** How long an API process trusts an organization's limits it read: `limits set` takes effect within it. */
export const ORGANIZATION_LIMITS_CACHE_MS = 1000;

/**
 * A stream slot's lease (src/limits/streamSlots.ts): its holder looks at its run and renews it
 * every STREAM_SLOT_CHECK_MS, so a slot is free within that of its run's end, and within
 * STREAM_SLOT_LEASE_MS of its holder's death.
 */
export const STREAM_SLOT_LEASE_MS = 30_000;
export const STREAM_SLOT_CHECK_MS = 2000;

/** The `Retry-After` of a 429 for an organization with all its stream slots taken: when slots are looked at again. */
export const STREAM_SLOT_RETRY_AFTER_S = 2;

/**
 * How long an MCP session (src/api/mcp) is kept with no request in flight: a client that went
 * away without DELETE frees its place after it. A person answering a form is a request in flight.
 */
export const MCP_SESSION_IDLE_MS = 10 * 60_000;

/** Room an attempt needs beyond its own limits: waiting for a conversion thread, the reply. */
const ATTEMPT_SLACK_MS = 15_000;

/** Start-to-close timeouts of the activities, in milliseconds; workflows get them in their input. */
export interface ActivityTimeouts {
  fetchMs: number;
  /** Effort `min`'s download, which has its own shorter limit. */
  quickFetchMs: number;
  renderMs: number;
  modelMs: number;
  /** One web search of Research. */
  searchMs: number;
  /** One step of an Automate session: an action, or a reading of the page's text. */
  stepMs: number;
}

/**
 * An Automate step's action, at most: a navigation (15 s) and settling, or an action (5 s each
 * part), and the page observed after it with its screenshot.
 */
const STEP_ACTION_MS = 90_000;

/**
 * The activities' timeouts for a run. `pageLimitMs` is the request's own limit of each download
 * or render (Research's `fetch_timeout`), which the page activities then enforce instead of the
 * settings' limits, so it is what their attempts must contain.
 */
export function activityTimeouts(config: Config, pageLimitMs?: number): ActivityTimeouts {
  const reading = config.convert.timeoutMs + ATTEMPT_SLACK_MS;
  return {
    fetchMs: (pageLimitMs ?? config.fetch.timeoutMs) + reading,
    quickFetchMs: (pageLimitMs ?? config.fetch.minEffortTimeoutMs) + reading,
    renderMs: (pageLimitMs ?? config.browser.renderTimeoutMs) + reading,
    modelMs: config.model.timeoutMs + ATTEMPT_SLACK_MS,
    searchMs: config.research.search.timeoutMs + ATTEMPT_SLACK_MS,
    stepMs: Math.max(STEP_ACTION_MS, reading),
  };
}

/** Throws ConfigError, naming the setting, when one attempt could not finish within its operation's deadline. */
export function checkTimeouts(config: Config): void {
  const timeouts = activityTimeouts(config);
  const limits: [ms: number, deadline: number, variables: string][] = [
    [timeouts.fetchMs, OPERATION_DEADLINE_MS['extract-markdown'], 'FETCH_TIMEOUT_MS (with CONVERT_TIMEOUT_MS)'],
    [
      timeouts.quickFetchMs,
      OPERATION_DEADLINE_MS['extract-markdown'],
      'FETCH_MIN_EFFORT_TIMEOUT_MS (with CONVERT_TIMEOUT_MS)',
    ],
    [timeouts.renderMs, OPERATION_DEADLINE_MS['extract-markdown'], 'RENDER_TIMEOUT_MS (with CONVERT_TIMEOUT_MS)'],
    [timeouts.modelMs, OPERATION_DEADLINE_MS['extract-json'], 'MODEL_TIMEOUT_MS'],
    [timeouts.searchMs, RESEARCH_DEADLINE_MS.fast, 'SEARCH_TIMEOUT_MS'],
  ];
  for (const [ms, deadline, variables] of limits) {
    if (ms > deadline) {
      throw new ConfigError(
        variables,
        `one attempt may take ${ms / 1000} s, more than the ${deadline / 1000} s a run of its operation may take; lower it`,
      );
    }
  }
}

/**
 * A worker that stops heartbeating (its process died or hangs) loses the attempt after this long,
 * and the attempt is retried on whichever worker polls next, instead of after start-to-close.
 * Every activity that can run for long heartbeats: fetches, renders, model calls, session steps.
 */
const HEARTBEAT_TIMEOUT: Duration = '10s';

/**
 * The timeouts of runs started before workflows were given theirs in their input, or before a
 * timeout joined them (the search's, the step's); those runs replay and finish with these.
 */
const TIMEOUTS_BEFORE_INPUT: ActivityTimeouts = {
  fetchMs: 60_000,
  quickFetchMs: 60_000,
  renderMs: 90_000,
  modelMs: 600_000,
  searchMs: 90_000,
  stepMs: STEP_ACTION_MS,
};

/** The timeouts a run was given, and the earlier values for those it was not. */
function timeoutsOf(given: Partial<ActivityTimeouts> | undefined): ActivityTimeouts {
  return { ...TIMEOUTS_BEFORE_INPUT, ...given };
}

/**
 * How hard a plain fetch tries, by effort (spec §2.2): `min` asks the server once. The download has
 * its own deadline (FETCH_TIMEOUT_MS, shorter for `min`), the read its budget
 * (CONVERT_TIMEOUT_MS); the activity's timeout covers both.
 */
export function fetchOptions(effort: Effort, given: Partial<ActivityTimeouts> | undefined): ActivityOptions {
  const timeouts = timeoutsOf(given);
  const heartbeat = { heartbeatTimeout: HEARTBEAT_TIMEOUT };
  // One HTTP attempt: the fetch activity makes `min`'s failures final, so a second attempt only
  // replaces one whose worker was lost mid-fetch.
  if (effort === 'min')
    return { ...heartbeat, startToCloseTimeout: timeouts.quickFetchMs, retry: { maximumAttempts: 2 } };
  if (effort === 'standard') {
    return {
      ...heartbeat,
      startToCloseTimeout: timeouts.fetchMs,
      retry: { maximumAttempts: 3, initialInterval: '500ms', backoffCoefficient: 2 },
    };
  }
  return { ...heartbeat, startToCloseTimeout: timeouts.fetchMs, retry: { maximumAttempts: 2 } };
}

export function renderOptions(given: Partial<ActivityTimeouts> | undefined): ActivityOptions {
  return {
    startToCloseTimeout: timeoutsOf(given).renderMs,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 2, initialInterval: '1s' },
  };
}

/** The JSON operations' model calls: a schema miss is repaired by the workflow, not retried here. */
export function structuredModelOptions(given: Partial<ActivityTimeouts> | undefined): ActivityOptions {
  return {
    startToCloseTimeout: timeoutsOf(given).modelMs,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 6, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
  };
}

/** Research's own activities; its pages go through fetchOptions and renderOptions. */
export function researchOptions(given: Partial<ActivityTimeouts> | undefined): {
  model: ActivityOptions;
  search: ActivityOptions;
  robots: ActivityOptions;
} {
  const timeouts = timeoutsOf(given);
  return {
    model: {
      startToCloseTimeout: timeouts.modelMs,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    },
    search: {
      startToCloseTimeout: timeouts.searchMs,
      retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
    },
    // Every site's robots.txt is asked at once, each within 5 s (src/activities/checkRobots.ts).
    robots: {
      startToCloseTimeout: '60s',
      retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
    },
  };
}

/** Automate's model calls in runs started before workflows were given their timeouts. */
const AUTOMATE_MODEL_BEFORE_INPUT_MS = 120_000;

export function automateOptions(given: Partial<ActivityTimeouts> | undefined): {
  model: ActivityOptions;
  opening: ActivityOptions;
  step: ActivityOptions;
} {
  return {
    model: {
      startToCloseTimeout: given?.modelMs ?? AUTOMATE_MODEL_BEFORE_INPUT_MS,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
    },
    /** Opening may be retried anywhere: a worker that fails it leaves it to another. */
    opening: {
      startToCloseTimeout: '60s',
      retry: { maximumAttempts: 6, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s' },
    },
    /**
     * A session's steps run only on the worker that holds it: not retried (a retry would wait on
     * the same worker), and noticed fast when that worker is gone, by schedule-to-start (nobody
     * polls its queue) or heartbeat (it died mid-step). Either way a new session takes over.
     */
    step: {
      scheduleToStartTimeout: '15s',
      startToCloseTimeout: timeoutsOf(given).stepMs,
      heartbeatTimeout: HEARTBEAT_TIMEOUT,
      retry: { maximumAttempts: 1 },
    },
  };
}

/**
 * How long `npm start` and `npm run start:cluster` wait, after the API answers, for a worker on
 * every queue (its /ready): a first start on a loaded machine launches Chromium and bundles the
 * workflow code before a worker polls.
 */
export const LAUNCHER_READY_MS = 180_000;
