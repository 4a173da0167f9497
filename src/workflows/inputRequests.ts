import { condition, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import { requestIdOf, submitInputUpdate, type InputAnswer } from '../operations/automateInput';

/**
 * The input requests of one automate run (spec 3.1): at most one is pending at a time; it is
 * answered once, or expires. Answers arrive as Updates; the validator refuses an id that is not
 * the pending one (unknown, answered or expired), so those leave no trace in history. Create it
 * first thing in the workflow, so its handler exists before any answer arrives.
 */
export class InputRequests {
  private pending?: { requestId: string; answer?: InputAnswer };

  constructor() {
    setHandler(
      submitInputUpdate,
      (answer) => {
        this.pending!.answer = answer;
        return { status: 'accepted' };
      },
      {
        validator: (answer) => {
          if (!this.pending || this.pending.requestId !== answer.requestId || this.pending.answer)
            throw new Error('the input request is unknown, answered or expired');
        },
      },
    );
  }

  /** A new request id; answers to earlier ones are refused from now on. */
  open(): string {
    const ulid = workflowInfo().workflowId.split('/').at(-1)!;
    const requestId = requestIdOf(ulid, uuid4().replaceAll('-', ''));
    this.pending = { requestId };
    return requestId;
  }

  /** The answer to the pending request, or undefined when it expired first. */
  async answer(timeoutMs: number): Promise<InputAnswer | undefined> {
    const pending = this.pending!;
    const answered = await condition(() => pending.answer !== undefined, timeoutMs);
    this.pending = undefined;
    return answered ? pending.answer : undefined;
  }
}
