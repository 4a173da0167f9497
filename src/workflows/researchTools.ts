import { isCancellation, log as workflowLog, proxyActivities } from '@temporalio/workflow';
import type { RobotsActivities } from '../activities/checkRobots';
import type { ResearchModelActivities, ResearchReply } from '../activities/researchModel';
import type { SearchActivities } from '../activities/searchWeb';
import type { PageCacheUse } from '../cache/pageCache';
import { researchOptions } from '../config/timeouts';
import type { ResearchInput } from '../operations/research';
import type { ModeBudget } from '../research/modes';
import { PageReader, type PageAnalyst, type ReadingSteps } from '../research/pageReader';
import { ResearchFailure } from '../research/researchFailure';
import type { RunMetrics } from '../research/runMetrics';
import { failureText } from '../temporal/failureText';
import { obtainPageFacts } from './obtainPage';

/** What the model steps that read, weigh and write are told of the research. */
export interface About {
  query: string;
  objective: string;
  questions: string[];
  now: number;
}

/**
 * The activities one research run calls, with their time limits: the model, web search, and
 * the page reader (robots.txt, then each page through the extraction pipeline). Model tokens
 * and page reads are counted in the run's metrics.
 */
export class ResearchTools {
  readonly model;
  readonly search;
  readonly pages: PageReader;
  private readonly robots;

  constructor(
    private readonly input: ResearchInput,
    private readonly metrics: RunMetrics,
  ) {
    const steps: ReadingSteps = {
      checkRobots: (request) => this.robots.checkRobots(request),
      obtain: (url) => this.obtain(url),
      log: workflowLog,
    };
    this.pages = new PageReader(steps, metrics, input.pageConcurrency);
    const options = researchOptions(input.timeouts);
    this.model = proxyActivities<ResearchModelActivities>({ taskQueue: input.queues.model, ...options.model });
    this.search = proxyActivities<SearchActivities>({ taskQueue: input.queues.search, ...options.search });
    this.robots = proxyActivities<RobotsActivities>({ taskQueue: input.queues.fetch, ...options.robots });
  }

  /** A model step the run cannot do without: its failure fails the research. */
  async required<T>(step: () => Promise<ResearchReply<T>>): Promise<T> {
    try {
      const reply = await step();
      this.metrics.countTokens(reply);
      return reply.value;
    } catch (err) {
      if (isCancellation(err)) throw err;
      throw new ResearchFailure('research_failed', failureText(err));
    }
  }

  /** Has the model read one page for what it adds, and propose links to follow when the mode follows any. */
  analyst(about: () => About, budget: ModeBudget): PageAnalyst {
    return (target, title, reading) =>
      this.model.analyzePage({
        ...about(),
        page: {
          url: target.url,
          title,
          content: reading.content,
          links: budget.linksPerPage > 0 ? reading.links : [],
        },
        maxLinks: budget.linksPerPage,
      });
  }

  /** A page through the extraction pipeline, within the request's fetch limit, by way of the result cache. */
  private obtain(url: string) {
    const cache: PageCacheUse = { partition: this.input.cachePartition, lookup: !this.input.request.nocache };
    return obtainPageFacts(
      { url, effort: 'standard' },
      this.input.queues,
      { as: 'research', tokens: this.input.pageTokens },
      {
        timeoutMs: this.input.request.fetchTimeoutMs,
        cache,
        activityTimeouts: this.input.timeouts,
      },
    );
  }
}
