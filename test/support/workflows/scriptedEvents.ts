import { ApplicationFailure, continueAsNew, sleep } from '@temporalio/workflow';
import { EventLog } from '../../../src/events/eventLog';
import type { StreamState } from '../../../src/events/messages';
import { STREAMED_OPERATIONS, type StreamedOperation, type StreamedOperationName } from '../../../src/events/streams';

/**
 * Test only: a workflow that records a scripted list of events through EventLog, with timers
 * between them, so the relay can be tested before Research and Automate exist. Run by a worker
 * the test starts itself on its own task queue.
 */

export interface ScriptStep {
  event: string;
  /** A `timestamp` field, if present, is set to the time the workflow records the event. */
  data: Record<string, unknown>;
  /** Wait this long before recording it. */
  delayMs?: number;
}

export interface ScriptedEventsInput {
  operation: StreamedOperationName;
  steps: ScriptStep[];
  /** After the steps, fail with this error code of src/errors.ts. */
  failWith?: string;
  /** Continue as new after this many steps. */
  continueAsNewAfter?: number;
  stream?: StreamState;
}

export async function scriptedEvents(input: ScriptedEventsInput): Promise<number> {
  const log = new EventLog(
    STREAMED_OPERATIONS[input.operation] as StreamedOperation<Record<string, Record<string, unknown>>>,
    input.stream,
  );
  return log.run(async () => {
    for (const [index, step] of input.steps.entries()) {
      if (step.delayMs) await sleep(step.delayMs);
      log.emit(step.event, 'timestamp' in step.data ? { ...step.data, timestamp: Date.now() } : step.data);
      if (input.continueAsNewAfter === index + 1) {
        const stream = await log.handOver();
        await continueAsNew<typeof scriptedEvents>({
          ...input,
          steps: input.steps.slice(index + 1),
          continueAsNewAfter: undefined,
          stream,
        });
      }
    }
    if (input.failWith) throw ApplicationFailure.nonRetryable('scripted failure', input.failWith);
    return input.steps.length;
  });
}
