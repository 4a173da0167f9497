import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import type { GeoSettings } from '../config';
import { requireProxyFor } from '../operations/geo';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import { boundMarkdown } from '../extraction/bound';
import { organizationOf } from '../events/streams';
import {
  SESSION_LOST,
  SESSIONS_FULL,
  STEP_FAILED,
  type ActionOutcome,
  type Observation,
  type SessionOpening,
  type SessionSteps,
} from '../operations/automate';
import { SessionLostError, SessionsFullError, type BrowserSessions } from '../browser/browserSessions';
import { outcomeOf, settle } from '../browser/actionOutcome';
import type { BrowserSession } from '../browser/browserSession';
import { actionVerdict } from '../browser/actionFirewall';
import { describeForm, fillFields } from '../browser/formFields';
import { hiddenOutcome } from '../browser/secretValues';
import { PageUnresponsiveError, withinMs } from '../browser/pageDeadline';
import { observePage, PAGE_ANSWER_MS, titleOf } from '../browser/pageObservation';
import {
  ACTION_TIMEOUT_MS,
  carryOut,
  isPageRefusal,
  NAVIGATION_TIMEOUT_MS,
  shortError,
  webUrl,
} from '../browser/pageActions';
import { reportingFailures } from '../temporal/activityFailures';
import { heartbeating } from '../temporal/heartbeating';
import type { ReadingPool } from '../reading/readingPool';

export interface SessionActivityDeps {
  sessions: BrowserSessions;
  policy: AddressPolicy;
  geo: GeoSettings;
  userAgent: string;
  reader: ReadingPool;
  /** The task queue only this worker process polls: the session's later steps come to it. */
  queue: string;
}

/** The page text an `extract` step reads at most. */
export const PAGE_TEXT_MAX_CHARS = 40_000;

/**
 * Longest one part of a step may wait on the page: a page whose script holds its main thread
 * would otherwise hold the step (and the session) until the activity times out.
 */
const STEP_BOUND_MS = ACTION_TIMEOUT_MS + 1_000;

const INTERNAL_REFUSED = 'access to internal resources is not allowed';

const bare = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '');

/**
 * The internal host the guard proxy refused since `blockedBefore`, when it is the host of the
 * page now shown: the page is the proxy's refusal or Chromium's error page, not the site.
 */
function refusedHost(session: BrowserSession, blockedBefore: number, pageUrl: string): string | undefined {
  const host = bare(new URL(pageUrl).hostname);
  return session.proxy.blocked.slice(blockedBefore).find((refused) => bare(refused) === host);
}

/** The organization whose task opens the session, from its workflow id (`<organization>/automate/<ulid>`). */
function organizationOfTask(): string {
  return organizationOf(Context.current().info.workflowExecution?.workflowId ?? '') ?? '';
}

/** Opening a session: on the shared browser queue, so any browser worker with room takes it. */
export function createSessionOpening(deps: SessionActivityDeps): SessionOpening {
  return {
    async openSession(input) {
      return reportingFailures(
        () =>
          heartbeating(async () => {
            const start = input.url === undefined ? undefined : deps.policy.parseUrl(input.url);
            if (start) await deps.policy.checkUrl(start);
            const upstreamProxyUrl = input.country ? requireProxyFor(deps.geo, input.country) : undefined;
            let session: BrowserSession;
            let startError: string | undefined;
            try {
              session = await deps.sessions.open(
                input.sessionId,
                {
                  organization: organizationOfTask(),
                  upstreamProxyUrl,
                  userAgent: deps.userAgent,
                  idleMs: input.idleMs,
                },
                async (opened) => {
                  if (!start) return;
                  const page = await opened.page();
                  try {
                    await page.goto(start.href, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
                  } catch (err) {
                    const host = opened.proxy.blocked[0];
                    if (host) throw new ServiceError('internal_address', `the page reached for internal ${host}`);
                    if (!isPageRefusal(err))
                      throw new ServiceError('fetch_failed', `opening ${start.href}: ${shortError(err)}`);
                    // Retrying the open would hold a session slot for every attempt's full bound, for a page
                    // that may never load: the agent hears it as a failed step and may go elsewhere.
                    startError = `opening ${start.href}: ${shortError(err)}`;
                  }
                },
              );
            } catch (err) {
              // The workflow waits its turn and asks again, up to its bound: a retry here would run out in seconds.
              if (err instanceof SessionsFullError) throw ApplicationFailure.nonRetryable(err.message, SESSIONS_FULL);
              throw err;
            }
            session.secrets.protect(input.hidden);
            session.secrets.guard(input.guarded);
            const page = await session.page();
            return hiddenOutcome(session.secrets, {
              queue: deps.queue,
              url: page.url(),
              title: await titleOf(page),
              ...(startError ? { startError: session.secrets.hide(startError) } : {}),
            });
          }),
        (err) => err.code === 'fetch_failed',
      );
    },
  };
}

/** Steps of a session: on the queue of the one worker process that holds it. */
export function createSessionSteps(deps: SessionActivityDeps): SessionSteps {
  /**
   * Runs a step on the session, heartbeating. A session this worker does not hold, or whose
   * browser went away during the step, is SESSION_LOST: retrying here cannot help, the
   * workflow opens a new session instead.
   */
  const step = async <T>(sessionId: string, work: (session: BrowserSession) => Promise<T>): Promise<T> => {
    try {
      return await heartbeating(() => deps.sessions.use(sessionId, work));
    } catch (err) {
      if (err instanceof SessionLostError || !deps.sessions.holds(sessionId))
        throw ApplicationFailure.nonRetryable(err instanceof Error ? err.message : String(err), SESSION_LOST);
      throw err;
    }
  };

  /** What the agent sees of the page, without the values it must not read back. */
  const observed = async (session: BrowserSession, screenshot: boolean): Promise<Observation> => {
    const { screenshot: image, ...observation } = await observePage(await session.page(), screenshot);
    const snapshot = session.secrets.hide(observation.snapshot);
    // A page that shows a hidden value shows it in its pixels too: then its image stays here.
    const shown = image && snapshot === observation.snapshot ? { screenshot: image } : {};
    return { ...hiddenOutcome(session.secrets, observation), snapshot, ...shown };
  };

  /** Performs an action through the firewall; the page's refusals are the outcome, not failures. */
  const act = async (session: BrowserSession, input: Parameters<SessionSteps['performAction']>[0]) => {
    const { action } = input;
    const page = await session.page();
    const documentsBefore = session.documents;
    const blockedBefore = session.proxy.blocked.length;
    const refusedBefore = session.refusedNavigations.length;
    session.firewall = input.firewall;
    if (action.type === 'navigate') {
      const url = webUrl(action.url);
      if (!url)
        return outcomeOf(session, documentsBefore, {
          success: false,
          error: 'only http and https URLs can be opened',
        });
      try {
        await deps.policy.checkUrl(url);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const error = err.code === 'internal_address' ? INTERNAL_REFUSED : (err.detail ?? err.message);
        return outcomeOf(session, documentsBefore, { success: false, error });
      }
    }
    let error: string | undefined;
    try {
      const verdict = await withinMs(
        actionVerdict(session, page, action, session.secrets.policy(input.firewall)),
        STEP_BOUND_MS,
        'reading the element',
      );
      if (!verdict.allowed)
        return outcomeOf(session, documentsBefore, { success: false, blocked: true, error: verdict.reason });
      const bound = action.type === 'navigate' ? NAVIGATION_TIMEOUT_MS + STEP_BOUND_MS : STEP_BOUND_MS;
      await withinMs(carryOut(page, action), bound, 'the action');
    } catch (err) {
      if (!isPageRefusal(err)) throw err;
      error = shortError(err);
    }
    await settle(session, documentsBefore, action.type !== 'fill' && action.type !== 'scroll');
    const refused = session.refusedNavigations[refusedBefore];
    if (refused) return outcomeOf(session, documentsBefore, { success: false, blocked: true, error: refused });
    const host = refusedHost(session, blockedBefore, (await session.page()).url());
    if (host) error = `${INTERNAL_REFUSED} (${host})`;
    return outcomeOf(session, documentsBefore, error === undefined ? { success: true } : { success: false, error });
  };

  return {
    async observePage(input) {
      return step(input.sessionId, (session) => observed(session, input.screenshot));
    },

    // The page after the action comes with the outcome when asked: the next step needs no round trip of its own.
    async performAction(input) {
      return step(input.sessionId, async (session): Promise<ActionOutcome> => {
        const outcome = hiddenOutcome(session.secrets, await act(session, input));
        return input.observe ? { ...outcome, observation: await observed(session, input.observe.screenshot) } : outcome;
      });
    },

    async readPageText(input) {
      return reportingFailures(
        () =>
          step(input.sessionId, async (session) => {
            const page = await session.page();
            let html: string;
            try {
              html = await withinMs(page.content(), PAGE_ANSWER_MS, 'reading the page');
            } catch (err) {
              if (err instanceof PageUnresponsiveError) throw ApplicationFailure.nonRetryable(err.message, STEP_FAILED);
              throw err;
            }
            const { reading } = await deps.reader.readPage(
              {
                body: Buffer.from(html, 'utf8'),
                contentType: 'text/html; charset=utf-8',
                finalUrl: page.url(),
                truncated: false,
              },
              // The whole page: the agent extracts from forms, tables and lists that article heuristics would drop.
              { as: 'markdown', content: 'full' },
              { detectShell: false, signal: Context.current().cancellationSignal },
            );
            return hiddenOutcome(session.secrets, {
              url: page.url(),
              title: await titleOf(page),
              text: boundMarkdown(session.secrets.hide(reading.content), PAGE_TEXT_MAX_CHARS),
            });
          }),
        () => false,
      );
    },

    async describeForm(input) {
      return step(input.sessionId, async (session) => {
        try {
          const { fields, formDescription } = await withinMs(
            describeForm(await session.page(), input.ref),
            2 * STEP_BOUND_MS,
            'describing the form',
          );
          const hide = (text: string) => session.secrets.hide(text);
          return {
            fields: fields.map((field) => ({
              ...field,
              label: hide(field.label),
              ...(field.description === undefined ? {} : { description: hide(field.description) }),
              ...(field.currentValue === undefined ? {} : { currentValue: hide(field.currentValue) }),
            })),
            formDescription: hide(formDescription),
          };
        } catch (err) {
          if (!isPageRefusal(err)) throw err;
          // No element at `ref` (the page changed): there is no form to ask about.
          return { fields: [], formDescription: '' };
        }
      });
    },

    async fillFields(input) {
      return step(input.sessionId, async (session) => {
        const page = await session.page();
        const documentsBefore = session.documents;
        const typed = input.values.map((entry) => entry.value);
        session.secrets.protect(typed);
        session.secrets.guard(typed);
        session.firewall = input.firewall;
        const { fieldErrors } = await fillFields(session, page, input.values, session.secrets.policy(input.firewall));
        await settle(session, documentsBefore);
        return {
          fieldErrors: Object.fromEntries(
            Object.entries(fieldErrors).map(([ref, error]) => [ref, session.secrets.hide(error)]),
          ),
        };
      });
    },

    async closeSession(input) {
      await deps.sessions.close(input.sessionId);
    },
  };
}
