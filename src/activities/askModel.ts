import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MODEL_FAILED } from '../errors';
import type { ChatMessage, ModelClient } from '../model/modelClient';
import type { TokenUsage } from '../model/usage';
import { repairPrompt, systemPrompt, userPrompt, PROMPT_VERSION } from '../prompts/structuredJson.v1';
import {
  compileSchema,
  fillFromMetadata,
  strictCompatible,
  type JsonSchema,
  type SchemaCheck,
} from '../structured/schema';
import type { PageMetadata } from '../types';
import { modelFailure } from '../temporal/activityFailures';
import { parseModelJson } from '../model/modelJson';

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

/**
 * The API refuses schemas that do not compile, so one that fails here came another way (an old
 * run, a client of Temporal's): no retry can help it.
 */
function usableSchema(schema: JsonSchema): SchemaCheck {
  try {
    return compileSchema(schema);
  } catch (err) {
    throw ApplicationFailure.nonRetryable(
      `the schema cannot be used: ${err instanceof Error ? err.message : String(err)}`,
      MODEL_FAILED,
    );
  }
}

export function createModelActivities(client: ModelClient) {
  return {
    /** One request to the model for an object matching the caller's schema, checked against it. */
    async askModel(input: AskModelInput): Promise<ModelAnswer> {
      const check = usableSchema(input.schema);
      const messages: ChatMessage[] = [
        { role: 'system', content: systemPrompt(input.task) },
        { role: 'user', content: userPrompt(input) },
      ];
      if (input.repair) {
        messages.push(
          { role: 'assistant', content: input.repair.answer },
          { role: 'user', content: repairPrompt(input.repair.answer, input.repair.errors) },
        );
      }
      let reply;
      try {
        reply = await client.chat({
          task: `${input.task}-json`,
          messages,
          format: { type: 'json_schema', name: 'answer', schema: input.schema, strict: strictCompatible(input.schema) },
          signal: Context.current().cancellationSignal,
        });
      } catch (err) {
        throw modelFailure(err);
      }
      const { text: answer, usage, model } = reply;
      Context.current().log.info('model call', {
        model,
        usage,
        promptVersion: PROMPT_VERSION,
        repair: Boolean(input.repair),
      });
      let value: unknown;
      try {
        value = fillFromMetadata(parseModelJson(answer), input.schema, input.metadata);
      } catch {
        return { answer, errors: ['the answer is not valid JSON'], usage, model, promptVersion: PROMPT_VERSION };
      }
      const errors = check(value);
      // A value that fails may be too deep to carry back through Temporal; only its text is needed.
      return {
        answer,
        value: errors.length === 0 ? value : undefined,
        errors,
        usage,
        model,
        promptVersion: PROMPT_VERSION,
      };
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
