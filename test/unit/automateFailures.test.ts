import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import {
  modelFailureMessage,
  sessionLost,
  sessionsFull,
  stepFailure,
  unusableAnswer,
} from '../../src/automate/failures';
import { MODEL_FAILED } from '../../src/errors';
import { SESSION_LOST, SESSIONS_FULL, STEP_FAILED } from '../../src/operations/automate';

/** An activity's failure as the workflow receives it. */
const failed = (cause: Error): ActivityFailure =>
  new ActivityFailure('activity failed', 'performAction', '7', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);
const applicationFailure = (type: string, message = 'failed', details?: unknown[]): ActivityFailure =>
  failed(ApplicationFailure.create({ message, type, nonRetryable: true, details }));
const timedOut = (): ActivityFailure => failed(new TimeoutFailure('timed out', undefined, TimeoutType.HEARTBEAT));

describe('session failures', () => {
  it('takes a timeout or a lost session for a session to replace', () => {
    expect(sessionLost(timedOut())).toBe(true);
    expect(sessionLost(applicationFailure(SESSION_LOST))).toBe(true);
    expect(sessionLost(applicationFailure(STEP_FAILED))).toBe(false);
    expect(sessionLost(new Error('session_lost'))).toBe(false);
  });

  it('knows a full worker from other refusals', () => {
    expect(sessionsFull(applicationFailure(SESSIONS_FULL))).toBe(true);
    expect(sessionsFull(applicationFailure(SESSION_LOST))).toBe(false);
    expect(sessionsFull(timedOut())).toBe(false);
  });

  it("gives the page's reason for a failed step, and nothing for other failures", () => {
    expect(stepFailure(applicationFailure(STEP_FAILED, 'reading the page took longer than 5 s'))).toBe(
      'reading the page took longer than 5 s',
    );
    expect(stepFailure(applicationFailure(SESSION_LOST))).toBeUndefined();
    expect(stepFailure(timedOut())).toBeUndefined();
  });
});

describe('model failures', () => {
  const unusable = { errors: ['/price: must be number'], rawResponse: '{"price":"12"}' };

  it('reads an unusable answer out of the failure, in or out of an activity failure', () => {
    expect(unusableAnswer(applicationFailure(MODEL_FAILED, 'no answer matched', [unusable]))).toEqual(unusable);
    expect(unusableAnswer(ApplicationFailure.create({ message: 'x', details: [unusable] }))).toEqual(unusable);
    expect(unusableAnswer(applicationFailure(MODEL_FAILED, 'refused', [{ status: 400 }]))).toBeUndefined();
    expect(unusableAnswer(timedOut())).toBeUndefined();
  });

  it("says what failed in fixed words, never the client's message", () => {
    const secret = 'POST http://10.0.0.7:8080/v1/chat/completions: 401 key sk-123';
    expect(modelFailureMessage(applicationFailure(MODEL_FAILED, secret, [unusable]))).toBe(
      "the model's answer did not have the expected shape",
    );
    expect(modelFailureMessage(timedOut())).toBe('the model did not answer in time');
    expect(modelFailureMessage(applicationFailure(MODEL_FAILED, secret))).toBe('the model refused the request');
    expect(modelFailureMessage(applicationFailure('Error', secret))).toBe('the model could not be reached');
    expect(modelFailureMessage(new Error(secret))).toBe('the model could not be reached');
  });
});
