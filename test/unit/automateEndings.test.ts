import { completeEvent, endings, failsRun, finalAnswerOf } from '../../src/automate/endings';
import { StepNotes } from '../../src/automate/stepNotes';
import { SESSIONS_BUSY_MESSAGE } from '../../src/operations/automate';

const stats = { iterations: 3, actions: 2, durationMs: 40, startTime: 1_000, endTime: 1_040 };

describe('completeEvent', () => {
  it('reports an accepted answer with no error', () => {
    expect(completeEvent(endings.accepted('12 EUR'), stats)).toEqual({ success: true, finalAnswer: '12 EUR', stats });
  });

  it("shows the code's fixed sentence, never the ending's own message", () => {
    const event = completeEvent(endings.failed('connect ECONNREFUSED 10.0.0.7:8080'), stats);
    expect(event.error).toEqual({ code: 'TASK_FAILED', message: 'the task failed' });
    expect(completeEvent(endings.aborted('the shop is closed'), stats)).toMatchObject({
      success: false,
      finalAnswer: 'the shop is closed',
      error: { code: 'TASK_ABORTED', message: 'the agent gave the task up; its reason is the final answer' },
    });
    expect(completeEvent(endings.outOfIterations(7), stats).error).toEqual({
      code: 'MAX_ITERATIONS',
      message: 'the task was not done within maxIterations steps',
    });
    expect(completeEvent(endings.tooManyErrors(5, 'element not found'), stats).error).toEqual({
      code: 'MAX_ERRORS',
      message: 'too many steps failed in a row',
    });
  });

  it('shows a sentence of its own where the workflow has one', () => {
    expect(completeEvent(endings.sessionsBusy(), stats).error).toEqual({
      code: 'TASK_FAILED',
      message: SESSIONS_BUSY_MESSAGE,
    });
  });

  it('keeps the answer that failed validation', () => {
    expect(endings.notValidated('12 EUR', 3)).toEqual({
      success: false,
      finalAnswer: '12 EUR',
      error: { code: 'TASK_FAILED', message: 'the answer did not pass validation in 3 attempt(s)' },
    });
  });
});

describe('the final answer of a task that failed', () => {
  it('is the reason, in the words complete.error gives, when the agent left no answer', () => {
    for (const ending of [endings.outOfIterations(7), endings.tooManyErrors(5, 'x'), endings.failed('ECONNREFUSED')]) {
      const event = completeEvent(ending, stats);
      expect(event.finalAnswer).toBe(event.error!.message);
      expect(finalAnswerOf(ending)).toBe(event.error!.message);
    }
    expect(finalAnswerOf(endings.sessionsBusy())).toBe(SESSIONS_BUSY_MESSAGE);
  });

  it("is the agent's own where it left one", () => {
    expect(finalAnswerOf(endings.aborted('the shop is closed'))).toBe('the shop is closed');
    expect(finalAnswerOf(endings.notValidated('12 EUR', 3))).toBe('12 EUR');
    expect(finalAnswerOf(endings.accepted('12 EUR'))).toBe('12 EUR');
  });
});

describe('failsRun', () => {
  it('fails the run for errors and failed tasks only', () => {
    expect(failsRun(endings.tooManyErrors(5, 'x'))).toBe(true);
    expect(failsRun(endings.failed('x'))).toBe(true);
    expect(failsRun(endings.aborted('x'))).toBe(false);
    expect(failsRun(endings.outOfIterations(3))).toBe(false);
    expect(failsRun(endings.accepted('x'))).toBe(false);
  });
});

describe('StepNotes', () => {
  it('ends the task at the limit of failures in a row, naming the last', () => {
    const notes = new StepNotes(3);
    notes.failed(1, 'click e1', 'element not found');
    notes.failed(2, 'click e1', 'element not found');
    expect(() => notes.failed(3, 'click e2', 'detached')).toThrow(
      expect.objectContaining({ ending: endings.tooManyErrors(3, 'detached') }),
    );
  });

  it('starts counting again after a step that went through, and not after a plain note', () => {
    const notes = new StepNotes(2);
    notes.failed(1, 'click e1', 'element not found');
    notes.succeeded(2, 'click e2', 'done');
    notes.failed(3, 'click e1', 'element not found');
    expect(() => notes.note(4, 'wait', 'waited 1 s')).not.toThrow();
    expect(() => notes.failed(5, 'click e1', 'element not found')).toThrow();
  });

  it('reminds of the most recent notes only', () => {
    const notes = new StepNotes(5);
    for (let i = 1; i <= 4; i++) notes.note(i, 'wait', `waited ${i} s`);
    expect(notes.recent(2)).toEqual([
      { iteration: 3, action: 'wait', outcome: 'waited 3 s' },
      { iteration: 4, action: 'wait', outcome: 'waited 4 s' },
    ]);
    notes.failed(5, 'click e1', 'gone');
    expect(notes.recent(1)).toEqual([{ iteration: 5, action: 'click e1', outcome: 'failed: gone' }]);
  });
});
