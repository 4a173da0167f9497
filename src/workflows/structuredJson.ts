import { ActivityFailure, ApplicationFailure, patched, proxyActivities, upsertMemo } from '@temporalio/workflow';
import type { ModelActivities, ModelAnswer } from '../activities/askModel';
import { addUsage, noUsage } from '../model/usage';
import { MODEL_FAILED, MODEL_TRANSIENT } from '../errors';
import { mergeAnswers } from '../structured/merge';
import type { StructuredJsonInput } from '../operations/structuredJson';
import { structuredModelOptions } from '../config/timeouts';
import { obtainPage } from './obtainPage';
import { recordingOutcome } from './outcome';

/** The operation's own failure, by spec: 500 `failed to generate JSON` or `failed to transform data`. */
const FAILURE_TYPE = { extract: 'generation_failed', generate: 'transform_failed' } as const;

/** Runs that ended before a model outage was the operation's failure failed as `internal`; replay keeps them so. */
const MODEL_OUTAGE_PATCH = 'structured-model-outage';

/**
 * Fetch a page, hand its content to the model with the caller's schema, and keep asking (with
 * the validation errors shown) until the answer matches or the repairs run out. Long pages are
 * extracted chunk by chunk and merged. Never returns an object that fails the schema.
 */
async function structuredJson(task: 'extract' | 'generate', input: StructuredJsonInput): Promise<unknown> {
  const { chunks, metadata } = await obtainPage(
    input.request,
    input.queues,
    { as: 'modelInput' },
    { activityTimeouts: input.timeouts },
  );
  const model = proxyActivities<ModelActivities>({
    taskQueue: input.queues.model,
    ...structuredModelOptions(input.timeouts),
  });
  const usage = noUsage();
  const fail = (why: string): never => {
    upsertMemo({ usage });
    throw ApplicationFailure.nonRetryable(why, FAILURE_TYPE[task]);
  };
  const askUntilValid = async (content: string, part?: { index: number; count: number }): Promise<unknown> => {
    let repair: { answer: string; errors: string[] } | undefined;
    for (let attempt = 0; attempt <= input.repairAttempts; attempt++) {
      let answer: ModelAnswer;
      try {
        answer = await model.askModel({
          task,
          url: input.request.url,
          metadata,
          content,
          schema: input.request.json_schema,
          instructions: input.request.instructions,
          part,
          repair,
        });
      } catch (err) {
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
          if (err.cause.type === MODEL_FAILED) fail(err.cause.message);
          // A model still unavailable after every retry fails generation, as spec 7.3 and 7.4 say, not the service.
          if (err.cause.type === MODEL_TRANSIENT && patched(MODEL_OUTAGE_PATCH)) fail(err.cause.message);
        }
        throw err;
      }
      addUsage(usage, answer.usage);
      if (answer.errors.length === 0) return answer.value;
      repair = { answer: answer.answer, errors: answer.errors };
    }
    return fail(`no answer matched the schema: ${repair?.errors.join('; ')}`);
  };

  let value: unknown;
  if (chunks.length === 1) {
    value = await askUntilValid(chunks[0]!);
  } else {
    const answers: unknown[] = [];
    for (const [index, chunk] of chunks.entries())
      answers.push(await askUntilValid(chunk, { index, count: chunks.length }));
    const checked = await model.validateAnswer({
      value: mergeAnswers(answers),
      schema: input.request.json_schema,
      metadata,
    });
    if (checked.errors.length > 0) fail(`the merged answer does not match the schema: ${checked.errors.join('; ')}`);
    value = checked.value;
  }
  upsertMemo({ usage });
  return value;
}

/** Extract JSON (spec §2.6). */
export async function extractJson(input: StructuredJsonInput): Promise<unknown> {
  return recordingOutcome(() => structuredJson('extract', input));
}

/** Generate JSON (spec §2.7): the same, guided by the caller's instructions. */
export async function generateJson(input: StructuredJsonInput): Promise<unknown> {
  return recordingOutcome(() => structuredJson('generate', input));
}
