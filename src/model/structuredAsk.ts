import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MODEL_FAILED } from '../errors';
import type { ChatMessage, ModelClient } from './modelClient';
import { addUsage, noUsage, type TokenUsage } from './usage';
import type { ModelTask } from './tasks';
import type { Prompt } from '../prompts/prompt';
import { compileSchema } from '../structured/schema';
import { modelFailure } from '../temporal/activityFailures';
import { parseModelJson } from './modelJson';

/** A model's answer to one step, with what it cost. */
export interface ModelReply<T> {
  value: T;
  usage: TokenUsage;
  model: string;
  promptVersion: string;
}

/** What a failed step's ApplicationFailure carries in its details: why, and what the model wrote. */
export interface UnusableAnswer {
  errors: string[];
  rawResponse: string;
}

/**
 * Asks a model for JSON matching a step's schema and checks the answer; an answer that fails is
 * shown its errors and asked for once more, then the step fails for good (a model that cannot
 * follow the schema will not on a retry either), with the errors and the answer in the failure's
 * details. Research and Automate ask every model step this way.
 */
export function structuredAsker(client: ModelClient, promptVersion: string) {
  const checks = new Map<string, (value: unknown) => string[]>();

  return async function ask<T>(task: ModelTask, prompt: Prompt): Promise<ModelReply<T>> {
    let check = checks.get(prompt.schemaName);
    if (!check) checks.set(prompt.schemaName, (check = compileSchema(prompt.schema)));
    const messages: ChatMessage[] = [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ];
    const usage = noUsage();
    let errors: string[] = [];
    let text = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      let reply;
      try {
        reply = await client.chat({
          task,
          messages,
          format: { type: 'json_schema', name: prompt.schemaName, schema: prompt.schema, strict: true },
          signal: Context.current().cancellationSignal,
        });
      } catch (err) {
        throw modelFailure(err);
      }
      addUsage(usage, reply.usage);
      Context.current().log.info('model call', { task, model: reply.model, usage: reply.usage, promptVersion });
      text = reply.text;
      let value: unknown;
      try {
        value = parseModelJson(text);
        errors = check(value);
      } catch {
        errors = ['the answer is not valid JSON'];
      }
      if (errors.length === 0) return { value: value as T, usage, model: reply.model, promptVersion };
      messages.push(
        { role: 'assistant', content: text.slice(0, 20_000) },
        {
          role: 'user',
          content: `Your answer did not match the JSON Schema:\n${errors.map((e) => `- ${e}`).join('\n')}\n\nAnswer again with one JSON object that matches it.`,
        },
      );
    }
    const details: UnusableAnswer = { errors, rawResponse: text.slice(0, 2_000) };
    throw ApplicationFailure.create({
      message: `${task}: no answer matched the schema: ${errors.join('; ')}`,
      type: MODEL_FAILED,
      nonRetryable: true,
      details: [details],
    });
  };
}
