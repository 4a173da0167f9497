import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { AskModelInput, ModelAnswer, ValidateInput } from '../../src/activities/askModel';
import type { ModelInput } from '../../src/reading/readPage';
import { MODEL_FAILED } from '../../src/errors';
import type { ObtainedPage } from '../../src/types';
import type { StructuredJsonInput } from '../../src/operations/structuredJson';
import { ERROR_CODE, OUTCOME } from '../../src/temporal/searchAttributes';
import { eventually } from '../support/eventually';
import { failureOf, startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * The JSON workflows' loop: ask the model, show it the schema errors and ask again until the
 * answer matches or the repairs run out; chunk by chunk on a long page; waiting out a
 * model's Retry-After. The page and model activities are test doubles scripted per test.
 */

const TASK_QUEUE = 'structured-json';
const URL = 'https://shop.example/lamp';
const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
};

/** One scripted model answer: a value with the errors the real activity would find, or a failure. */
type Reply = { value: unknown; errors?: string[] } | ApplicationFailure;

interface Doubles {
  chunks: string[];
  replies: Reply[];
  asked: AskModelInput[];
  validated: ValidateInput[];
  validationErrors: string[];
}

const valid = { value: { name: 'Harbour Lamp', price: 42.5 } };
const invalid = { value: { name: 'Harbour Lamp', price: '42.50 EUR' }, errors: ['/price must be number'] };

let doubles: Doubles;
let tier: WorkflowTier;

const activities = {
  async fetchPage(): Promise<ObtainedPage<ModelInput>> {
    const reading = { chunks: doubles.chunks, metadata: { title: 'Harbour Lamp' } };
    return {
      requestedUrl: URL,
      finalUrl: URL,
      status: 200,
      contentType: 'text/html',
      bytes: 1000,
      obtainMs: 5,
      needsBrowser: false,
      reading,
    };
  },
  async askModel(input: AskModelInput): Promise<ModelAnswer> {
    doubles.asked.push(input);
    const reply = doubles.replies.shift();
    if (!reply) throw ApplicationFailure.nonRetryable('the test scripted no more answers');
    if (reply instanceof ApplicationFailure) throw reply;
    const usage = { prompt: 100, completion: 10, total: 110 };
    return {
      answer: JSON.stringify(reply.value),
      value: reply.value,
      errors: reply.errors ?? [],
      usage,
      model: 'double',
      promptVersion: 'v1',
    };
  },
  async validateAnswer(input: ValidateInput): Promise<{ value: unknown; errors: string[] }> {
    doubles.validated.push(input);
    return { value: input.value, errors: doubles.validationErrors };
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
  // A worker's first workflow task builds its sandbox (about a second); paid here, not by a test.
  doubles = { chunks: ['warm-up'], replies: [valid], asked: [], validated: [], validationErrors: [] };
  await run('extractJson');
});

afterAll(() => tier?.stop());

beforeEach(() => {
  doubles = {
    chunks: ['# Harbour Lamp\n\nPrice: 42.50 EUR'],
    replies: [],
    asked: [],
    validated: [],
    validationErrors: [],
  };
});

function start(workflow: 'extractJson' | 'generateJson', repairAttempts = 2): Promise<WorkflowHandle> {
  const input: StructuredJsonInput = {
    request: {
      url: URL,
      effort: 'min',
      json_schema: SCHEMA,
      ...(workflow === 'generateJson' ? { instructions: 'Name and price' } : {}),
    },
    queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE, model: TASK_QUEUE },
    repairAttempts,
  };
  return tier.start(workflow, input);
}

async function run(workflow: 'extractJson' | 'generateJson', repairAttempts = 2): Promise<unknown> {
  return (await start(workflow, repairAttempts)).result();
}

describe('the repair loop', () => {
  it('shows the model its errors and asks again, up to ten times, until the answer matches', async () => {
    doubles.replies = [...Array.from({ length: 9 }, () => invalid), valid];
    expect(await run('extractJson', 9)).toEqual(valid.value);
    expect(doubles.asked).toHaveLength(10);
    expect(doubles.asked[0]!.repair).toBeUndefined();
    for (const asked of doubles.asked.slice(1)) {
      expect(asked.repair).toEqual({ answer: JSON.stringify(invalid.value), errors: ['/price must be number'] });
    }
  });

  it('fails as generation_failed (Extract) or transform_failed (Generate) when the repairs run out', async () => {
    doubles.replies = [invalid, invalid, invalid];
    const extract = await failureOf(run('extractJson'));
    expect(extract.type).toBe('generation_failed');
    expect(extract.message).toBe('no answer matched the schema: /price must be number');
    expect(doubles.asked).toHaveLength(3);

    doubles.replies = [invalid, invalid, invalid];
    expect((await failureOf(run('generateJson'))).type).toBe('transform_failed');
    expect(doubles.asked.at(-1)!.instructions).toBe('Name and price');
  });

  it('stops at once when the model refuses the request for good', async () => {
    doubles.replies = [
      ApplicationFailure.nonRetryable('model answered HTTP 401: Incorrect API key provided.', MODEL_FAILED),
    ];
    const failure = await failureOf(run('extractJson'));
    expect(failure.type).toBe('generation_failed');
    expect(failure.message).toBe('model answered HTTP 401: Incorrect API key provided.');
    expect(doubles.asked).toHaveLength(1);
  });
});

describe('retries', () => {
  it("waits out a model's two-minute Retry-After in workflow time, not in test time", async () => {
    const retryAfter = ApplicationFailure.create({
      type: 'model_transient',
      message: 'model answered HTTP 429',
      nextRetryDelay: '2m',
    });
    doubles.replies = [retryAfter, valid];
    const before = await tier.env.currentTimeMs();
    const started = Date.now();
    expect(await run('extractJson')).toEqual(valid.value);
    expect((await tier.env.currentTimeMs()) - before).toBeGreaterThanOrEqual(120_000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(doubles.asked).toHaveLength(2);
  });

  it('fails as the operation, not as the service, when the model stays unavailable through every retry', async () => {
    doubles.replies = Array.from({ length: 6 }, () =>
      ApplicationFailure.create({ type: 'model_transient', message: 'model answered HTTP 503: overloaded' }),
    );
    const failure = await failureOf(run('extractJson'));
    expect({ type: failure.type, message: failure.message }).toEqual({
      type: 'generation_failed',
      message: 'model answered HTTP 503: overloaded',
    });
    expect(doubles.asked).toHaveLength(6);
  });
});

describe('a page in chunks', () => {
  it('asks chunk by chunk (repairing each as needed), then checks the merged answer', async () => {
    doubles.chunks = ['part one', 'part two', 'part three'];
    doubles.replies = [
      { value: { name: 'Harbour Lamp', price: null } },
      invalid,
      { value: { name: '', price: 42.5 } },
      { value: { name: '', price: null } },
    ];
    expect(await run('extractJson')).toEqual({ name: 'Harbour Lamp', price: 42.5 });
    expect(doubles.asked.map((asked) => [asked.content, asked.part, Boolean(asked.repair)])).toEqual([
      ['part one', { index: 0, count: 3 }, false],
      ['part two', { index: 1, count: 3 }, false],
      ['part two', { index: 1, count: 3 }, true],
      ['part three', { index: 2, count: 3 }, false],
    ]);
    expect(doubles.validated).toHaveLength(1);
    expect(doubles.validated[0]!.value).toEqual({ name: 'Harbour Lamp', price: 42.5 });
  });

  it('fails when the merged answer does not match the schema', async () => {
    doubles.chunks = ['part one', 'part two'];
    doubles.replies = [valid, valid];
    doubles.validationErrors = ['(root) must NOT have additional properties: colour'];
    const failure = await failureOf(run('generateJson'));
    expect(failure.type).toBe('transform_failed');
    expect(failure.message).toBe(
      'the merged answer does not match the schema: (root) must NOT have additional properties: colour',
    );
  });
});

describe('the outcome in search attributes', () => {
  async function outcomeOf(handle: WorkflowHandle): Promise<{ outcome?: string; errorCode?: string }> {
    await handle.result().catch(() => undefined);
    const { typedSearchAttributes } = await handle.describe();
    return { outcome: typedSearchAttributes.get(OUTCOME), errorCode: typedSearchAttributes.get(ERROR_CODE) };
  }

  it('records a completed run, and a failed one with its error code', async () => {
    doubles.replies = [valid];
    expect(await outcomeOf(await start('extractJson'))).toEqual({ outcome: 'completed', errorCode: undefined });
    doubles.replies = [invalid, invalid, invalid];
    expect(await outcomeOf(await start('generateJson'))).toEqual({ outcome: 'failed', errorCode: 'transform_failed' });
  });

  it('records a run cancelled while it waits', async () => {
    doubles.replies = [ApplicationFailure.create({ type: 'model_transient', message: 'busy', nextRetryDelay: '1h' })];
    const handle = await start('extractJson');
    await eventually(() => doubles.asked.length > 0, { what: 'the model to be asked', timeoutMs: 10_000 });
    await handle.cancel();
    expect(await outcomeOf(handle)).toEqual({ outcome: 'cancelled', errorCode: undefined });
  });
});
