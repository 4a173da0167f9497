import type { Config, ModelSettings } from '../config/settings';

/** Why the JSON operations cannot run, naming the settings to fix; undefined when they can. */
export function modelProblem(model: ModelSettings): string | undefined {
  if (!model.model)
    return 'the model is not configured: set OPENAI_MODEL, and OPENAI_BASE_URL for a server other than OpenAI';
  if (!model.baseUrl && !model.apiKey) return 'the model is not configured: set OPENAI_API_KEY or OPENAI_BASE_URL';
  return undefined;
}

/** Why Research cannot run, naming the settings to fix; undefined when it can. */
export function researchProblem(config: Pick<Config, 'model' | 'research'>): string | undefined {
  if (!config.research.search.engine) return 'no search engine is configured: set SEARXNG_URL or BRAVE_SEARCH_API_KEY';
  return modelProblem(config.model);
}
