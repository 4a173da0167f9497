import type { TaskMetrics } from '../events/automate';
import { addUsage, noUsage, type TokenUsage } from '../model/usage';

/** What a run counts for its `task:metrics` events and its usage memo. */
export class RunMetrics {
  readonly usage = noUsage();
  private generations = 0;
  private generationErrors = 0;
  private readonly eventCounts: Record<string, number> = {};

  counted(event: string): void {
    this.eventCounts[event] = (this.eventCounts[event] ?? 0) + 1;
  }

  generated(usage: TokenUsage): void {
    this.generations++;
    addUsage(this.usage, usage);
  }

  generationFailed(): void {
    this.generationErrors++;
  }

  /** The figures so far, after `stepCount` steps; the events counted up to now, copied. */
  figures(stepCount: number): Omit<TaskMetrics, 'iterationId' | 'timestamp'> {
    return {
      stepCount,
      aiGenerationCount: this.generations,
      aiGenerationErrorCount: this.generationErrors,
      totalInputTokens: this.usage.prompt,
      totalOutputTokens: this.usage.completion,
      eventCounts: { ...this.eventCounts },
    };
  }
}
