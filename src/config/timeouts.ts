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

/** Room an attempt needs beyond its own limits: waiting for a conversion thread, the reply. */
const ATTEMPT_SLACK_MS = 15_000;

/** Start-to-close timeouts of the activities, in milliseconds; workflows get them in their input. */
export interface ActivityTimeouts {
  fetchMs: number;
  /** Effort `min`'s download, which has its own shorter limit. */
  quickFetchMs: number;
  renderMs: number;
  modelMs: number;
}

export function activityTimeouts(config: Config): ActivityTimeouts {
  const reading = config.convert.timeoutMs + ATTEMPT_SLACK_MS;
  return {
    fetchMs: config.fetch.timeoutMs + reading,
    quickFetchMs: config.fetch.minEffortTimeoutMs + reading,
    renderMs: config.browser.renderTimeoutMs + reading,
    modelMs: config.model.timeoutMs + ATTEMPT_SLACK_MS,
  };
}

/** Throws ConfigError, naming the setting, when one attempt could not finish within its operation's deadline. */
export function checkTimeouts(config: Config): void {
  const timeouts = activityTimeouts(config);
  const page = OPERATION_DEADLINE_MS['extract-markdown'];
  const fits = (ms: number, deadline: number, variables: string) => {
    if (ms > deadline) {
      throw new ConfigError(
        variables,
        `one attempt may take ${ms / 1000} s, more than the ${deadline / 1000} s a run of its operation may take; lower it`,
      );
    }
  };
  fits(timeouts.fetchMs, page, 'FETCH_TIMEOUT_MS (with CONVERT_TIMEOUT_MS)');
  fits(timeouts.renderMs, page, 'RENDER_TIMEOUT_MS (with CONVERT_TIMEOUT_MS)');
  fits(timeouts.modelMs, OPERATION_DEADLINE_MS['extract-json'], 'MODEL_TIMEOUT_MS');
}
