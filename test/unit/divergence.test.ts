import { describeDivergence, parseDivergence } from '../../src/tools/divergence';

/** How the SDK wraps the core's message in a DeterminismViolationError (as seen from @temporalio/worker 1.24). */
const sdkMessage = (core: string) =>
  'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible ' +
  'with the history that was fed in. Details: Workflow activation completion failed: Failure { failure: ' +
  `Some(Failure { message: "[TMPRL1100] Nondeterminism error: ${core}", source: "", stack_trace: "", ` +
  'encoded_attributes: None, cause: None, failure_info: Some(ApplicationFailureInfo(ApplicationFailureInfo { ' +
  'r#type: "", non_retryable: false, details: None, next_retry_delay: None, category: Unspecified })) }), ' +
  'force_cause: NonDeterministicError }';

describe('divergence wording', () => {
  it('names the event and the command the code issued instead', () => {
    const divergence = parseDivergence(
      sdkMessage(
        'UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 11, WorkflowExecutionCompleted)',
      ),
    );
    expect(divergence).toMatchObject({
      eventId: 11,
      recorded: 'WorkflowExecutionCompleted',
      did: 'sets search attributes',
      detail: 'UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 11, WorkflowExecutionCompleted)',
    });
    expect(describeDivergence({ ...divergence, taskCompletedAt: 10 })).toEqual([
      'diverged at event 11, in the commands of the workflow task completed at event 10',
      '  history recorded: WorkflowExecutionCompleted',
      '  the code now:     sets search attributes',
      '  core: UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 11, WorkflowExecutionCompleted)',
    ]);
  });

  it('says when the code issues nothing where the history has an event', () => {
    expect(
      parseDivergence(sdkMessage('No command scheduled for event HistoryEvent(id: 5, ActivityTaskScheduled)')),
    ).toMatchObject({
      eventId: 5,
      recorded: 'ActivityTaskScheduled',
      did: 'issues no command there (it ends or waits sooner)',
    });
  });

  it('reads a state machine named in words', () => {
    expect(
      parseDivergence(
        sdkMessage('Timer machine does not handle this event: HistoryEvent(id: 8, ActivityTaskScheduled)'),
      ),
    ).toMatchObject({ eventId: 8, recorded: 'ActivityTaskScheduled', did: 'starts a timer' });
  });

  it('reads a command for something else, which names no event, by what each side names', () => {
    const divergence = parseDivergence(
      sdkMessage(
        "Activity type of scheduled event 'fetchPage' does not match activity type of activity command 'renderPage'",
      ),
    );
    expect(divergence).toMatchObject({
      recorded: "activity type 'fetchPage'",
      did: "activity type 'renderPage'",
      name: 'fetchPage',
    });
    expect(divergence.eventId).toBeUndefined();
    expect(describeDivergence(divergence)[0]).toBe('diverged at an event it could not place');
  });

  it('keeps the core words of a form it does not know', () => {
    const divergence = parseDivergence(sdkMessage('Unexpected command producing an invalid transition'));
    expect(divergence).toMatchObject({ did: 'issues a command the history lacks' });
    expect(divergence.detail).toBe('Unexpected command producing an invalid transition');
  });
});
