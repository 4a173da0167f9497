import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { ModelSettings } from '../config';
import { TRANSIENT_STATUSES } from '../net/transientStatuses';
import { ModelError } from './modelError';
import type { ModelTask } from './tasks';
import type { TokenUsage } from './usage';

/**
 * The one client of the model endpoint: any OpenAI-compatible Chat Completions server. It picks
 * the model for each task, asks for structured output (falling back to JSON mode on servers
 * without it), reports token usage, and sorts failures into retryable or not. Retrying is left
 * to the caller (Temporal activities), so every attempt shows in a run's history.
 */

export type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** What shape the answer must take: free text, any JSON object, or JSON matching a schema. */
export type AnswerFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean };

export interface ChatRequest {
  task: ModelTask;
  messages: ChatMessage[];
  format: AnswerFormat;
  signal?: AbortSignal;
}

export interface ChatAnswer {
  text: string;
  usage: TokenUsage;
  model: string;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after-ms') ?? undefined;
  if (value && /^\d+$/.test(value)) return Number(value);
  const seconds = headers?.get('retry-after');
  if (!seconds) return undefined;
  if (/^\d+(\.\d+)?$/.test(seconds)) return Math.ceil(Number(seconds) * 1000);
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function classify(err: unknown): Error {
  if (err instanceof APIConnectionError) return new ModelError(`model unreachable: ${err.message}`, true);
  if (err instanceof APIError) {
    const retryable = err.status !== undefined && TRANSIENT_STATUSES.has(err.status);
    return new ModelError(
      `model answered HTTP ${err.status}: ${err.message}`,
      retryable,
      retryable ? retryAfterMs(err.headers) : undefined,
    );
  }
  // Not an answer of the protocol (a proxy's error page, a body that is not JSON): a transient
  // fault of the endpoint, as a 502 would be, so it is retried and then fails as an outage.
  return new ModelError(`model answered no completion: ${err instanceof Error ? err.message : String(err)}`, true);
}

function respondsWithoutJsonSchema(err: unknown): boolean {
  return err instanceof APIError && err.status === 400 && /response_format|json_schema|structured/i.test(err.message);
}

function responseFormat(format: AnswerFormat): OpenAI.Chat.ChatCompletionCreateParams['response_format'] {
  if (format.type === 'text') return undefined;
  if (format.type === 'json') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict } };
}

export class ModelClient {
  private readonly client: OpenAI;
  /** Models found to lack json_schema structured output; asked in JSON mode from then on. */
  private readonly jsonModeOnly = new Set<string>();

  constructor(private readonly settings: ModelSettings) {
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      // Local servers (vLLM, Ollama, llama.cpp) take any key; the client insists on one.
      apiKey: settings.apiKey ?? 'unused',
      timeout: settings.timeoutMs,
      maxRetries: 0,
    });
  }

  modelFor(task: ModelTask): string {
    return this.settings.taskModels[task] ?? this.settings.model!;
  }

  /** One completion. Throws ModelError for failures of the endpoint, saying whether to retry. */
  async chat(request: ChatRequest): Promise<ChatAnswer> {
    const model = this.modelFor(request.task);
    // The client's own timeout ends once the answer's headers are in: a body that stops coming
    // would hold the call until the activity's timeout, MODEL_TIMEOUT_MS and its slack, per attempt.
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const ask = (format: AnswerFormat) =>
      this.client.chat.completions.create(
        { model, messages: request.messages, response_format: responseFormat(format), temperature: 0 },
        { signal },
      );
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      const format: AnswerFormat =
        request.format.type === 'json_schema' && this.jsonModeOnly.has(model) ? { type: 'json' } : request.format;
      try {
        completion = await ask(format);
      } catch (err) {
        if (format.type !== 'json_schema' || !respondsWithoutJsonSchema(err)) throw err;
        this.jsonModeOnly.add(model);
        completion = await ask({ type: 'json' });
      }
    } catch (err) {
      if (deadline.aborted && !request.signal?.aborted)
        throw new ModelError(`model gave no whole answer within ${this.settings.timeoutMs / 1000} s`, true);
      throw classify(err);
    }
    return {
      text: completion.choices[0]?.message?.content ?? '',
      usage: {
        prompt: completion.usage?.prompt_tokens ?? 0,
        completion: completion.usage?.completion_tokens ?? 0,
        total: completion.usage?.total_tokens ?? 0,
      },
      model,
    };
  }
}
