/** Tokens a model call used, as the model endpoint reports them. */
export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

export function noUsage(): TokenUsage {
  return { prompt: 0, completion: 0, total: 0 };
}

/** Adds one call's usage to a run's total. */
export function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.prompt += usage.prompt;
  total.completion += usage.completion;
  total.total += usage.total;
}
