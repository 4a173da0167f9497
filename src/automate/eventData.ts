import type { AutomateReply } from '../activities/automateModel';
import type { AutomateEvents, InIteration } from '../events/automate';
import type { AutomateRequest } from '../operations/automate';

/** An event's data before the workflow frames it with its iteration and time. */
export type Unframed<E extends keyof AutomateEvents> = Omit<AutomateEvents[E], keyof InIteration>;

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
