import { isCredential, modelData } from '../../src/automate/credentials';
import { pageView, taskContext } from '../../src/automate/modelInputs';
import { RunMetrics } from '../../src/automate/runMetrics';
import type { AutomateRequest } from '../../src/operations/automate';

const request: AutomateRequest = {
  task: 'Log in and find the balance',
  maxIterations: 10,
  maxValidationAttempts: 3,
  interactive: false,
  trustedHostnames: [],
  unsafeMode: false,
};

describe('modelData', () => {
  it('masks credentials, by key or by value, and lists them', () => {
    const data = { user: { name: 'alice', password: 'hunter2-secret' }, card: '4111 1111 1111 1111' };
    const { shown, credentials } = modelData(data);
    expect(JSON.parse(shown!)).toEqual({
      user: { name: 'alice', password: '<secret: fill it by its dataPath>' },
      card: '<secret: fill it by its dataPath>',
    });
    expect(credentials).toEqual(['hunter2-secret', '4111 1111 1111 1111']);
  });

  it('has nothing to show without data', () => {
    expect(modelData(undefined)).toEqual({ credentials: [] });
  });

  it('knows a credential by the last key of its path', () => {
    expect(isCredential('account.password', 'x')).toBe(true);
    expect(isCredential('account.name', 'alice')).toBe(false);
  });
});

describe('taskContext', () => {
  it('tells every model step the task, and what the request has of the rest', () => {
    expect(taskContext(request, undefined)).toEqual({ task: request.task });
    expect(
      taskContext({ ...request, url: 'https://bank.example/', guardrails: 'read only' }, '{"user":"alice"}'),
    ).toEqual({
      task: request.task,
      startUrl: 'https://bank.example/',
      data: '{"user":"alice"}',
      guardrails: 'read only',
    });
  });
});

describe('pageView', () => {
  it('gives the model the snapshot, not the screenshot', () => {
    const page = {
      url: 'https://bank.example/',
      title: 'Bank',
      snapshot: '- button "Log in" [ref=e1]',
      truncated: false,
      screenshot: { image: 'AAAA', bytes: 3 },
      screenshotBytes: 3,
    };
    expect(pageView(page)).toEqual({ url: page.url, title: 'Bank', snapshot: page.snapshot, truncated: false });
  });
});

describe('RunMetrics', () => {
  it('counts generations, failures, tokens and events, and copies the counts it reports', () => {
    const metrics = new RunMetrics();
    metrics.counted('agent:step');
    metrics.generated({ prompt: 50, completion: 10, total: 60 });
    metrics.generated({ prompt: 5, completion: 1, total: 6 });
    metrics.generationFailed();
    const figures = metrics.figures(2);
    metrics.counted('agent:step');
    expect(figures).toEqual({
      stepCount: 2,
      aiGenerationCount: 2,
      aiGenerationErrorCount: 1,
      totalInputTokens: 55,
      totalOutputTokens: 11,
      eventCounts: { 'agent:step': 1 },
    });
    expect(metrics.usage).toEqual({ prompt: 55, completion: 11, total: 66 });
  });
});
