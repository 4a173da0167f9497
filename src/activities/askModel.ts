import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { ModelSettings } from '../config';
import { MODEL_FAILED } from '../errors';
import { repairPrompt, systemPrompt, userPrompt, PROMPT_VERSION } from '../prompts/structuredJson.v1';
import { compileSchema, fillFromMetadata, strictCompatible, type JsonSchema, type SchemaCheck } from '../structured/schema';
import type { PageMetadata } from '../types';

export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
}

export interface AskModelInput {
  task: 'extract' | 'generate';
  url: string;
  metadata: PageMetadata;
  content: string;
  schema: JsonSchema;
  instructions?: string;
  part?: { index: number; count: number };
  /** A second try: the answer that failed and why. */
  repair?: { answer: string; errors: string[] };
}

export interface ModelAnswer {
  /** The text the model answered, for a repair request. */
  answer: string;
  /** The parsed answer with page_title/favicon filled; present when it matches the schema. */
  value?: unknown;
  /** Schema violations; empty when the answer is valid. */
  errors: string[];
  usage: TokenUsage;
  model: string;
  promptVersion: string;
}

export interface ValidateInput {
  value: unknown;
  schema: JsonSchema;
  metadata: PageMetadata;
}

/** Statuses after which the same request may succeed. */
const TRANSIENT = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after-ms') ?? undefined;
  if (value && /^\d+$/.test(value)) return Number(value);
  const seconds = headers?.get('retry-after');
  if (!seconds) return undefined;
  if (/^\d+(\.\d+)?$/.test(seconds)) return Math.ceil(Number(seconds) * 1000);
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Model errors as Temporal failures: transient ones retry (after Retry-After), the rest stop at once. */
function asFailure(err: unknown): Error {
  if (err instanceof APIConnectionError) return ApplicationFailure.retryable(`model unreachable: ${err.message}`, 'model_transient');
  if (err instanceof APIError && err.status !== undefined && TRANSIENT.has(err.status)) {
    const delay = retryAfterMs(err.headers);
    return ApplicationFailure.create({
      type: 'model_transient',
      message: `model answered HTTP ${err.status}: ${err.message}`,
      nextRetryDelay: delay === undefined ? undefined : `${delay}ms`,
    });
  }
  if (err instanceof APIError) return ApplicationFailure.nonRetryable(`model answered HTTP ${err.status}: ${err.message}`, MODEL_FAILED);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The API refuses schemas that do not compile, so one that fails here came another way (an old
 * run, a client of Temporal's): no retry can help it.
 */
function usableSchema(schema: JsonSchema): SchemaCheck {
  try {
    return compileSchema(schema);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`the schema cannot be used: ${err instanceof Error ? err.message : String(err)}`, MODEL_FAILED);
  }
}

function parseAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return JSON.parse(fenced ? fenced[1]! : text);
}

function respondsWithoutJsonSchema(err: unknown): boolean {
  return err instanceof APIError && err.status === 400 && /response_format|json_schema|structured/i.test(err.message);
}

export function createModelActivities(settings: ModelSettings) {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    // Local servers (vLLM, Ollama, llama.cpp) take any key; the client insists on one.
    apiKey: settings.apiKey ?? 'unused',
    timeout: settings.timeoutMs,
    // Retries are Temporal's, visible in the run's history, with backoff and Retry-After.
    maxRetries: 0,
  });
  /** Servers found to lack json_schema structured output; asked in JSON mode from then on. */
  const jsonModeOnly = new Set<string>();

  return {
    /** One request to the model for an object matching the caller's schema, checked against it. */
    async askModel(input: AskModelInput): Promise<ModelAnswer> {
      const model = (input.task === 'extract' ? settings.taskModels.extractJson : settings.taskModels.generateJson) ?? settings.model!;
      const check = usableSchema(input.schema);
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: 'system', content: systemPrompt(input.task) },
        { role: 'user', content: userPrompt(input) },
      ];
      if (input.repair) {
        messages.push({ role: 'assistant', content: input.repair.answer }, { role: 'user', content: repairPrompt(input.repair.answer, input.repair.errors) });
      }
      const structured: OpenAI.ResponseFormatJSONSchema = {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: input.schema, strict: strictCompatible(input.schema) },
      };
      const ask = (format: OpenAI.Chat.ChatCompletionCreateParams['response_format']) =>
        client.chat.completions.create({ model, messages, response_format: format, temperature: 0 }, { signal: Context.current().cancellationSignal });
      let completion: OpenAI.Chat.ChatCompletion;
      try {
        if (jsonModeOnly.has(model)) {
          completion = await ask({ type: 'json_object' });
        } else {
          try {
            completion = await ask(structured);
          } catch (err) {
            if (!respondsWithoutJsonSchema(err)) throw err;
            jsonModeOnly.add(model);
            completion = await ask({ type: 'json_object' });
          }
        }
      } catch (err) {
        throw asFailure(err);
      }
      const usage: TokenUsage = {
        prompt: completion.usage?.prompt_tokens ?? 0,
        completion: completion.usage?.completion_tokens ?? 0,
        total: completion.usage?.total_tokens ?? 0,
      };
      Context.current().log.info('model call', { model, usage, promptVersion: PROMPT_VERSION, repair: Boolean(input.repair) });
      const answer = completion.choices[0]?.message?.content ?? '';
      let value: unknown;
      try {
        value = fillFromMetadata(parseAnswer(answer), input.schema, input.metadata);
      } catch {
        return { answer, errors: ['the answer is not valid JSON'], usage, model, promptVersion: PROMPT_VERSION };
      }
      const errors = check(value);
      // A value that fails may be too deep to carry back through Temporal; only its text is needed.
      return { answer, value: errors.length === 0 ? value : undefined, errors, usage, model, promptVersion: PROMPT_VERSION };
    },

    /** Checks a merged answer against the caller's schema, after filling page_title/favicon. */
    async validateAnswer(input: ValidateInput): Promise<{ value: unknown; errors: string[] }> {
      const check = usableSchema(input.schema);
      const value = fillFromMetadata(input.value, input.schema, input.metadata);
      return { value, errors: check(value) };
    },
  };
}

export type ModelActivities = ReturnType<typeof createModelActivities>;
