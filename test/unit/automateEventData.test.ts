import { completedData, endings } from '../../src/automate/endings';
import { generationData, setupData, withMessage } from '../../src/automate/eventData';
import type { AutomatePayloads } from '../../src/events/automate';
import type { AutomateRequest } from '../../src/operations/automate';

const request: AutomateRequest = {
  task: 'Buy the cheapest kettle',
  maxIterations: 10,
  maxValidationAttempts: 3,
  interactive: false,
  trustedHostnames: [],
  unsafeMode: false,
};

describe('setupData', () => {
  it('shows the task and only what the request has, the data as masked', () => {
    expect(setupData(request, undefined, false)).toEqual({
      task: request.task,
      browserName: 'chromium',
      vision: false,
    });
    const full = { ...request, url: 'https://shop.example/', guardrails: 'no purchase', country: 'DE' };
    expect(setupData(full, '{"card":"<secret: fill it by its dataPath>"}', true)).toEqual({
      task: request.task,
      browserName: 'chromium',
      url: 'https://shop.example/',
      data: { card: '<secret: fill it by its dataPath>' },
      guardrails: 'no purchase',
      proxy: 'DE',
      vision: true,
    });
  });
});

describe('generationData', () => {
  it("reports a model step's prompt, answer and tokens under the step's name", () => {
    const reply = {
      value: { plan: 'Buy it' },
      usage: { prompt: 50, completion: 10, total: 60 },
      model: 'm',
      promptVersion: 'automate/v1',
      prompt: 'Plan the task',
    };
    expect(generationData('planning the task', reply)).toEqual({
      prompt: 'Plan the task',
      schema: 'planning the task',
      finishReason: 'stop',
      usage: { inputTokens: 50, outputTokens: 10, totalTokens: 60 },
      object: { plan: 'Buy it' },
    });
  });
});

describe('the message of each event', () => {
  const SECRET = 'hunter2-Sesame';
  const at = { iterationId: 'iteration-3', timestamp: 1 };
  const figures = {
    ...at,
    stepCount: 3,
    aiGenerationCount: 4,
    aiGenerationErrorCount: 0,
    totalInputTokens: 10,
    totalOutputTokens: 5,
    eventCounts: {},
  };
  const form = {
    ...at,
    requestId: 'req_01J9',
    fields: [{ ref: 'e7', label: `Password ${SECRET}`, fieldType: 'password' as const, required: true }],
    formDescription: `Sign in as ${SECRET}`,
    pageTitle: SECRET,
    pageUrl: `https://shop.example/login?user=${SECRET}`,
  };
  const secretUrl = `https://user:${SECRET}@shop.example/search?q=${SECRET}#${SECRET}`;
  /** One payload of each event that has no message of its own, with the caller's secret in every free text. */
  const payloads: {
    [E in Exclude<keyof AutomatePayloads, 'done' | 'agent:status' | 'task:completed' | 'error'>]: AutomatePayloads[E];
  } = {
    start: { task: SECRET, url: secretUrl },
    'task:setup': { ...at, task: SECRET, browserName: 'chromium', url: secretUrl, data: { password: SECRET } },
    'task:started': {
      ...at,
      task: SECRET,
      url: secretUrl,
      plan: SECRET,
      successCriteria: SECRET,
      actionItems: [SECRET],
    },
    'task:aborted': { ...at, reason: SECRET, finalAnswer: SECRET },
    'task:validated': {
      ...at,
      completionQuality: 'partial',
      finalAnswer: SECRET,
      observation: SECRET,
      feedback: SECRET,
    },
    'task:validation_error': { ...at, errors: [SECRET], rawResponse: SECRET, retryCount: 2 },
    'task:metrics': figures,
    'task:metrics_incremental': figures,
    'task:trace_context': { traceId: '0199c5a4-7d2e-7b61-9c1e-5f3a2b1c0d9e' },
    'agent:processing': { ...at, operation: 'Deciding the next action', hasScreenshot: false },
    'agent:step': { ...at, currentIteration: 3 },
    'agent:action': { ...at, action: 'type', ref: SECRET, value: SECRET },
    'agent:reasoned': { ...at, reasoning: SECRET },
    'agent:extracted': { ...at, extractedData: JSON.stringify({ password: SECRET }) },
    'agent:waiting': { ...at, seconds: 2 },
    'browser:navigated': { ...at, title: SECRET, url: secretUrl },
    'browser:action_started': { ...at, action: `type ${SECRET}`, ref: 'e7', value: SECRET },
    'browser:action_completed': { ...at, success: false, error: SECRET },
    'browser:screenshot_captured': { ...at, format: 'jpeg', size: 2048 },
    'browser:screenshot_captured_image': { ...at, image: SECRET, mediaType: 'image/jpeg' },
    'browser:reconnected': { ...at, startingUrl: secretUrl, endpointIndex: 1, total: 3 },
    'cdp:endpoint_connected': { ...at, endpointIndex: 0, total: 3 },
    'cdp:endpoint_cycle': { ...at, attempt: 1, total: 2, error: SECRET },
    'ai:generation': {
      ...at,
      prompt: SECRET,
      schema: 'deciding the next action',
      finishReason: 'stop',
      usage: {},
      object: SECRET,
    },
    'ai:generation:error': { ...at, error: SECRET, prompt: SECRET, schema: SECRET },
    'system:debug_compression': { ...at, originalSize: 100, compressedSize: 40, compressionPercent: 60 },
    'system:debug_message': { ...at, messages: [SECRET] },
    'interactive:form_data:request': form,
    'interactive:form_data:error': { ...form, fieldErrors: { e7: SECRET } },
    complete: {
      success: false,
      finalAnswer: SECRET,
      stats: { iterations: 3, actions: 2, durationMs: 9, startTime: 1, endTime: 10 },
      error: { code: 'MAX_ITERATIONS', message: 'the task was not done within maxIterations steps' },
    },
  };

  it.each(Object.entries(payloads))(
    '%s: a short line, and nothing of the data, the model or the page',
    (event, data) => {
      const { message } = withMessage(event as keyof typeof payloads, data as never) as { message: string };
      expect(message.length).toBeGreaterThan(0);
      expect(message.length).toBeLessThanOrEqual(120);
      expect(message).not.toContain(SECRET);
      expect(message.toLowerCase()).not.toContain('hunter2');
    },
  );

  it('names the host a page is on, the action and its ref, and the input request to answer', () => {
    expect(withMessage('browser:navigated', payloads['browser:navigated']).message).toBe('On shop.example');
    expect(withMessage('agent:action', { ...at, action: 'click', ref: 'f2e5' }).message).toBe(
      'Next action: click f2e5',
    );
    expect(withMessage('interactive:form_data:request', form).message).toBe(
      'Input needed: 1 field; answer request req_01J9',
    );
    expect(withMessage('complete', payloads.complete).message).toBe(
      'Task failed: the task was not done within maxIterations steps',
    );
  });

  it('keeps a message the workflow gave, and leaves done empty', () => {
    expect(
      withMessage('agent:status', { ...at, message: 'Every browser session is in use; waiting for one' }).message,
    ).toBe('Every browser session is in use; waiting for one');
    expect(withMessage('done', {})).toEqual({});
  });
});

describe('completedData', () => {
  it('says how the task ended, a failure in the words of complete.error', () => {
    expect(completedData(endings.accepted('12 EUR'))).toEqual({
      finalAnswer: '12 EUR',
      success: true,
      message: 'Task completed',
    });
    expect(completedData(endings.aborted('the password hunter2 was refused'))).toEqual({
      finalAnswer: 'the password hunter2 was refused',
      success: false,
      message: 'Task failed: the agent gave the task up; its reason is the final answer',
    });
    expect(completedData(endings.outOfIterations(4)).message).toBe(
      'Task failed: the task was not done within maxIterations steps',
    );
  });
});
