import type { Dispatcher } from 'undici';
import robotsParser from 'robots-parser';
import type { FetchSettings } from '../config';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import { httpFetch } from '../net/httpFetch';

export interface CheckRobotsInput {
  urls: string[];
}

export interface RobotsVerdict {
  allowed: string[];
  blocked: string[];
}

/** The product token research matches robots.txt groups by (`User-agent: webloom`, else `*`). */
export const ROBOTS_AGENT = 'webloom';
/** RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt. */
const MAX_ROBOTS_BYTES = 512 * 1024;
const ROBOTS_TIMEOUT_MS = 5_000;
/**
 * How long a site's rules are kept: RFC 9309 advises no longer than a day; an unreachable site is
 * asked again sooner.
 */
const KEEP_MS = 60 * 60_000;
const KEEP_UNREACHABLE_MS = 5 * 60_000;
const MAX_SITES = 2_000;

type Rules = { isAllowed(url: string, agent?: string): boolean | undefined };

const ALLOW_ALL: Rules = { isAllowed: () => true };
const DISALLOW_ALL: Rules = { isAllowed: () => false };

export interface RobotsDeps {
  settings: FetchSettings;
  policy: AddressPolicy;
  agent: Dispatcher;
}

/**
 * robots.txt for the pages research visits (RFC 9309, read by robots-parser): each site's file
 * fetched once through the same guard as any page, and kept for an hour in this worker. No
 * robots.txt (a 4xx) allows everything; a server error or no answer at all disallows everything
 * for now, as the RFC asks.
 */
export function createRobotsActivities(deps: RobotsDeps) {
  const sites = new Map<string, { rules: Promise<Rules>; until: number }>();

  async function fetchRules(origin: string): Promise<{ rules: Rules; keepMs: number }> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const response = await httpFetch(robotsUrl, deps.policy, deps.agent, {
        ...deps.settings,
        timeoutMs: Math.min(ROBOTS_TIMEOUT_MS, deps.settings.timeoutMs),
        maxBytes: MAX_ROBOTS_BYTES,
      });
      if (response.status >= 500) return { rules: DISALLOW_ALL, keepMs: KEEP_UNREACHABLE_MS };
      if (response.status >= 400) return { rules: ALLOW_ALL, keepMs: KEEP_MS };
      // Rules found after a redirect still apply to the site that was asked (RFC 9309, 2.3.1.2).
      return { rules: robotsParser(robotsUrl, response.body.toString('utf8')), keepMs: KEEP_MS };
    } catch (err) {
      // A site on an internal address is refused when its pages are fetched; its rules do not matter.
      if (err instanceof ServiceError && err.code === 'internal_address') return { rules: ALLOW_ALL, keepMs: KEEP_MS };
      return { rules: DISALLOW_ALL, keepMs: KEEP_UNREACHABLE_MS };
    }
  }

  function rulesFor(origin: string): Promise<Rules> {
    const now = Date.now();
    const known = sites.get(origin);
    if (known && known.until > now) return known.rules;
    if (sites.size >= MAX_SITES) sites.delete(sites.keys().next().value!);
    const entry: { rules: Promise<Rules>; until: number } = { rules: Promise.resolve(ALLOW_ALL), until: Infinity };
    entry.rules = fetchRules(origin).then(({ rules, keepMs }) => {
      entry.until = Date.now() + keepMs;
      return rules;
    });
    sites.set(origin, entry);
    return entry.rules;
  }

  return {
    /** Which of the URLs robots.txt lets research fetch. */
    async checkRobots(input: CheckRobotsInput): Promise<RobotsVerdict> {
      const verdict: RobotsVerdict = { allowed: [], blocked: [] };
      await Promise.all(
        input.urls.map(async (url) => {
          let origin: string;
          try {
            origin = new URL(url).origin;
          } catch {
            // Not a URL: the fetch refuses it with its own reason.
            verdict.allowed.push(url);
            return;
          }
          const allowed = (await rulesFor(origin)).isAllowed(url, ROBOTS_AGENT) !== false;
          (allowed ? verdict.allowed : verdict.blocked).push(url);
        }),
      );
      // In the order asked, whatever order the sites answered in.
      const order = new Map(input.urls.map((url, index) => [url, index]));
      verdict.allowed.sort((a, b) => order.get(a)! - order.get(b)!);
      verdict.blocked.sort((a, b) => order.get(a)! - order.get(b)!);
      return verdict;
    },
  };
}

export type RobotsActivities = ReturnType<typeof createRobotsActivities>;
