import type { ResearchMetrics } from '../events/research';
import { addUsage, noUsage, type TokenUsage } from '../model/usage';

/** What a model step reports of its cost. */
interface ModelCost {
  model: string;
  usage: TokenUsage;
}

/** Share of attempts that succeeded, to three decimals; 1 when none was made. */
function rate(ok: number, all: number): number {
  return all === 0 ? 1 : Math.round((ok / all) * 1000) / 1000;
}

/** A research run's counts as it goes: the `metrics` of its report and the usage its memo records. */
export class RunMetrics {
  fetches = 0;
  cachedFetches = 0;
  fetchesOk = 0;
  robotsBlocked = 0;
  searchesRun = 0;
  searchesOk = 0;
  analyzes = 0;
  analyzesOk = 0;
  /** Tokens of every model call, summed. */
  readonly usage = noUsage();
  private readonly searches: Record<string, number> = {};
  private readonly phases: Record<string, { duration: number }> = {};
  private readonly tokens: Record<string, { input: number; output: number }> = {};

  searched(engine: string): void {
    this.searchesOk++;
    this.searches[engine] = (this.searches[engine] ?? 0) + 1;
  }

  /** Adds time to a phase; a phase that recurs (each round's searching) sums. */
  addPhase(name: string, durationMs: number): void {
    const entry = (this.phases[name] ??= { duration: 0 });
    entry.duration += durationMs;
  }

  countTokens(reply: ModelCost): void {
    const tokens = (this.tokens[reply.model] ??= { input: 0, output: 0 });
    tokens.input += reply.usage.prompt;
    tokens.output += reply.usage.completion;
    addUsage(this.usage, reply.usage);
  }

  summary(iterations: number, totalDuration: number): ResearchMetrics {
    return {
      iterations,
      fetches: this.fetches,
      cachedFetches: this.cachedFetches,
      robotsBlocked: this.robotsBlocked,
      searches: this.searches,
      cachedSearches: {},
      successRates: {
        fetches: rate(this.fetchesOk, this.fetches),
        searches: rate(this.searchesOk, this.searchesRun),
        analyzes: rate(this.analyzesOk, this.analyzes),
      },
      phases: this.phases,
      tokens: this.tokens,
      totalDuration,
    };
  }
}
