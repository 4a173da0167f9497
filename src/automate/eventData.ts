import type { AutomateReply } from '../activities/automateModel';
import type { AutomateEvents, AutomatePayloads, InIteration } from '../events/automate';
import type { AutomateRequest } from '../operations/automate';

/** An event's data before the workflow frames it with its iteration and time. */
export type Unframed<E extends keyof AutomatePayloads> = Omit<AutomatePayloads[E], keyof InIteration>;

/** `task:setup`: the request as the stream may show it; `shownData` has its credentials masked. */
export function setupData(
  request: AutomateRequest,
  shownData: string | undefined,
  vision: boolean,
): Unframed<'task:setup'> {
  return {
    task: request.task,
    browserName: 'chromium',
    ...(request.url ? { url: request.url } : {}),
    ...(shownData ? { data: JSON.parse(shownData) as unknown } : {}),
    ...(request.guardrails ? { guardrails: request.guardrails } : {}),
    ...(request.country ? { proxy: request.country } : {}),
    vision,
  };
}

/** `ai:generation`: a model step's prompt, answer and tokens; `what` names the step. */
export function generationData(what: string, reply: AutomateReply<unknown>): Unframed<'ai:generation'> {
  const { prompt, completion, total } = reply.usage;
  return {
    prompt: reply.prompt,
    schema: what,
    finishReason: 'stop',
    usage: { inputTokens: prompt, outputTokens: completion, totalTokens: total },
    object: reply.value,
  };
}

/** Where a page is, by its host alone: a path or query may carry what the caller typed. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'a page';
  } catch {
    return 'a page';
  }
}

/** An element ref as page snapshots name them (`e12`, `f2e5`); a model may write anything there. */
const SNAPSHOT_REF = /^(f\d{1,6})?e\d{1,9}$/;
/** An action's name (`click`, `request_input`); anything else a model wrote is left out. */
const ACTION_NAME = /^[a-z_]{1,32}$/;

/** `click e12`: the action and its ref, each only where it has its expected shape. */
function actionWords(action: string, ref: string | null | undefined, on = ''): string {
  const name = ACTION_NAME.test(action) ? action : 'an action';
  return ref && SNAPSHOT_REF.test(ref) ? `${name} ${on}${ref}` : name;
}

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Events whose payload has no `message` of its own (`agent:status`, `task:completed` and `error` have). */
type Untold = Exclude<
  {
    [E in keyof AutomatePayloads]: AutomatePayloads[E] extends { message: string } ? never : E;
  }[keyof AutomatePayloads],
  'done'
>;

/**
 * Each event's `message`, the line a client's timeline shows. It is built from our own words,
 * counts, action names, element refs and hosts only: never from the caller's data, what the
 * model wrote or what a page says (those stay in the event's own fields, masked where they must
 * be), so no secret can reach a timeline through it.
 */
const MESSAGES: { [E in Untold]: (data: AutomatePayloads[E]) => string } = {
  start: () => 'Starting the task',
  'task:setup': (data) => `Setting up ${data.browserName}${data.url ? ` for ${hostOf(data.url)}` : ''}`,
  'task:started': (data) =>
    data.actionItems?.length ? `Planned the task in ${count(data.actionItems.length, 'step')}` : 'Planned the task',
  'task:aborted': () => 'The agent gave the task up',
  'task:validated': (data) => `Answer reviewed: ${data.completionQuality}`,
  'task:validation_error': (data) => `The answer's review could not be read (attempt ${data.retryCount})`,
  'task:metrics': (data) =>
    `Done in ${count(data.stepCount, 'step')} and ${count(data.aiGenerationCount, 'model call')}`,
  'task:metrics_incremental': (data) => `${count(data.stepCount, 'step')} so far`,
  'task:trace_context': (data) => `Trace id ${data.traceId}`,
  'agent:processing': (data) => data.operation,
  'agent:step': (data) => `Step ${data.currentIteration}`,
  'agent:action': (data) => `Next action: ${actionWords(data.action, data.ref)}`,
  'agent:reasoned': () => 'Reasoned about the next action',
  'agent:extracted': () => 'Extracted data from the page',
  'agent:waiting': (data) => `Waiting ${count(data.seconds, 'second')}`,
  'browser:navigated': (data) => `On ${hostOf(data.url)}`,
  'browser:action_started': (data) => `Doing ${actionWords(data.action, data.ref, 'on ')}`,
  'browser:action_completed': (data) => (data.success ? 'Action done' : 'Action failed'),
  'browser:screenshot_captured': (data) => `Screenshot taken (${data.format}, ${count(data.size, 'byte')})`,
  'browser:screenshot_captured_image': () => 'Screenshot sent',
  'browser:reconnected': (data) => `Browser reconnected (session ${data.endpointIndex + 1} of ${data.total})`,
  'cdp:endpoint_connected': (data) => `Browser connected (session ${data.endpointIndex + 1} of ${data.total})`,
  'cdp:endpoint_cycle': (data) => `Browser session lost; reconnecting (attempt ${data.attempt} of ${data.total})`,
  'ai:generation': (data) => `Model answered: ${typeof data.schema === 'string' ? data.schema : 'a step'}`,
  'ai:generation:error': () => 'A model call failed',
  'system:debug_compression': (data) => `Context compressed by ${data.compressionPercent}%`,
  'system:debug_message': (data) => `Context of ${count(data.messages.length, 'message')}`,
  'interactive:form_data:request': (data) =>
    `Input needed: ${count(data.fields.length, 'field')}; answer request ${data.requestId}`,
  'interactive:form_data:error': (data) =>
    `Input refused for ${count(Object.keys(data.fieldErrors).length, 'field')}; answer request ${data.requestId} again`,
  complete: (data) => (data.success ? 'Task complete' : `Task failed: ${data.error?.message ?? 'no answer'}`),
};

/** The event as the stream carries it: with its `message`, but `done`, which stays empty (spec 6.1). */
export function withMessage<E extends keyof AutomatePayloads>(event: E, data: AutomatePayloads[E]): AutomateEvents[E] {
  if (event === 'done' || 'message' in data) return data as AutomateEvents[E];
  const message = (MESSAGES[event as Untold] as (data: AutomatePayloads[E]) => string)(data);
  return { ...data, message } as AutomateEvents[E];
}
