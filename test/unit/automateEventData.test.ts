import { generationData, setupData } from '../../src/automate/eventData';
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
