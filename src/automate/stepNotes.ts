import type { StepNote } from '../prompts/automate.v1';
import { endings, TaskEnded } from './endings';

/**
 * The agent's notes on its steps, which each decision is reminded of, and the count of steps
 * failed in a row: at the limit the task ends (MAX_ERRORS).
 */
export class StepNotes {
  private readonly notes: StepNote[] = [];
  private failedInRow = 0;

  constructor(private readonly maxFailedInRow: number) {}

  note(iteration: number, action: string, outcome: string): void {
    this.notes.push({ iteration, action, outcome });
  }

  /** A step that went through: the failures before it no longer run in a row. */
  succeeded(iteration: number, action: string, outcome: string): void {
    this.failedInRow = 0;
    this.note(iteration, action, outcome);
  }

  /** A failed step: noted for the model; throws TaskEnded when too many failed in a row. */
  failed(iteration: number, action: string, error: string): void {
    this.note(iteration, action, `failed: ${error}`);
    if (++this.failedInRow >= this.maxFailedInRow) throw new TaskEnded(endings.tooManyErrors(this.failedInRow, error));
  }

  /** The last `count` notes: older ones would crowd the decision's prompt. */
  recent(count: number): StepNote[] {
    return this.notes.slice(-count);
  }
}
