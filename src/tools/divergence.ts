/**
 * What a replay's nondeterminism error says, in plain words: the event where the code parts
 * from the history, what the history recorded there and what the code does instead. Read from
 * the SDK core's message (`[TMPRL1100] Nondeterminism error: ...`), whose forms are:
 *
 * - `No command scheduled for event HistoryEvent(id: 5, ActivityTaskScheduled)`: the code
 *   issued nothing where the history has an event;
 * - `Timer machine does not handle this event: HistoryEvent(id: 8, ActivityTaskScheduled)`, or
 *   `UpsertWorkflowSearchAttributesMachine does not handle HistoryEvent(id: 11, ...)`: the code
 *   issued another kind of command;
 * - `Activity type of scheduled event 'fetchPage' does not match activity type of activity
 *   command 'renderPage'` (or `id`, or a child workflow's): the same kind of command, for
 *   something else. This form names no event; the replay finds it (src/tools/replayHistory.ts).
 */
export interface Divergence {
  /** The history event the code parted from, when known. */
  eventId?: number;
  /** What the history recorded there. */
  recorded: string;
  /** What the code does instead. */
  did: string;
  /** The name the history's side of a mismatch gives (`fetchPage`), to find its event by. */
  name?: string;
  /** The workflow task whose commands parted from the history, by its WorkflowTaskCompleted event. */
  taskCompletedAt?: number;
  /** The core's own words. */
  detail: string;
}

/** Commands by the core's name of the state machine that issued them. */
const COMMANDS: Record<string, string> = {
  'Activity machine': 'schedules an activity',
  'Timer machine': 'starts a timer',
  'Child workflow machine': 'starts a child workflow',
  'Complete workflow machine': 'completes the workflow',
  'Fail workflow machine': 'fails the workflow',
  'Cancel workflow machine': 'cancels the workflow',
  'Continue as new workflow machine': 'continues as new',
  'Signal external WF machine': 'signals another workflow',
  'Cancel external WF machine': 'asks another workflow to cancel',
  'Update machine': 'answers an update',
  'Nexus operation machine': 'starts a Nexus operation',
  UpsertWorkflowSearchAttributesMachine: 'sets search attributes',
  ModifyWorkflowPropertiesMachine: 'changes the memo',
};

const HISTORY_EVENT = /HistoryEvent\(id: (\d+), (\w+)\)/;

/** The core's message inside the SDK's error, or the whole message when it holds none. */
export function coreDetail(message: string): string {
  const match = /Nondeterminism error: (.*?)(?:", source: |$)/s.exec(message);
  return match ? match[1]! : message;
}

/**
 * What `/^(.+?) of \w+ event '(.*)' does not match .* command '(.*)'$/s` captures, found with
 * indexOf and lastIndexOf: that pattern tried every split of a long message.
 */
export function commandMismatch(detail: string): [string, string, string, string] | undefined {
  const differs = "' does not match ";
  const command = " command '";
  if (!detail.endsWith("'")) return undefined;
  const commandAt = detail.lastIndexOf(command, detail.length - 1 - command.length);
  if (commandAt < 0) return undefined;
  const differsAt = detail.lastIndexOf(differs, commandAt - differs.length);
  if (differsAt < 0) return undefined;
  const event = / of \w+ event '/g;
  for (let found = event.exec(detail); found; event.lastIndex = found.index + 1, found = event.exec(detail)) {
    const recordedAt = found.index + found[0].length;
    if (found.index >= 1 && recordedAt <= differsAt)
      return [
        detail,
        detail.slice(0, found.index),
        detail.slice(recordedAt, differsAt),
        detail.slice(commandAt + command.length, -1),
      ];
  }
  return undefined;
}

export function parseDivergence(message: string): Divergence {
  const detail = coreDetail(message);
  const event = HISTORY_EVENT.exec(detail);
  const eventId = event ? Number(event[1]) : undefined;
  const recorded = event ? event[2]! : 'something else';
  if (detail.startsWith('No command scheduled for event'))
    return { eventId, recorded, did: 'issues no command there (it ends or waits sooner)', detail };
  const machine = /^(.*?) does not handle/.exec(detail);
  if (machine) return { eventId, recorded, did: COMMANDS[machine[1]!] ?? `issues a command of ${machine[1]}`, detail };
  const mismatch = commandMismatch(detail);
  if (mismatch) {
    const what = mismatch[1]!.toLowerCase();
    return { recorded: `${what} '${mismatch[2]}'`, did: `${what} '${mismatch[3]}'`, name: mismatch[2], detail };
  }
  return { eventId, recorded, did: 'issues a command the history lacks', detail };
}

/** The report's lines: where, what history recorded, what the code did, and the core's words. */
export function describeDivergence(divergence: Divergence): string[] {
  const where = divergence.eventId !== undefined ? `at event ${divergence.eventId}` : 'at an event it could not place';
  const task =
    divergence.taskCompletedAt !== undefined
      ? `, in the commands of the workflow task completed at event ${divergence.taskCompletedAt}`
      : '';
  return [
    `diverged ${where}${task}`,
    `  history recorded: ${divergence.recorded}`,
    `  the code now:     ${divergence.did}`,
    `  core: ${divergence.detail}`,
  ];
}
