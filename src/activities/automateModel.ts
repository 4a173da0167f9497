import type { ModelClient } from '../model/modelClient';
import type { ModelTask } from '../model/tasks';
import {
  AUTOMATE_PROMPT_VERSION,
  decidePrompt,
  extractPrompt,
  planPrompt,
  validatePrompt,
  type Decision,
  type DecideInput,
  type ExtractInput,
  type Extraction,
  type PlanInput,
  type TaskPlan,
  type ValidateInput,
  type Validation,
} from '../prompts/automate.v1';
import type { Prompt } from '../prompts/prompt';
import { structuredAsker, type ModelReply } from '../model/structuredAsk';

/** A step's answer, with the start of its prompt for the `ai:generation` event. */
export interface AutomateReply<T> extends ModelReply<T> {
  prompt: string;
}

/** What answers may carry back into the run's history, whatever the model wrote. */
const MAX_TEXT = 4_000;
const MAX_ANSWER = 20_000;
const MAX_EXTRACTED = 20_000;
/** Events show the prompt's start: enough to see what was asked, not the whole page again. */
const PROMPT_EXCERPT = 1_000;

const clip = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** An extraction is a JSON text (spec 6.1); a model that wrote something else has it quoted as a JSON string. */
function asJsonText(text: string): string {
  try {
    JSON.parse(text);
    return text.length > MAX_EXTRACTED ? JSON.stringify(clip(text, MAX_EXTRACTED)) : text;
  } catch {
    return JSON.stringify(clip(text, MAX_EXTRACTED));
  }
}

/** Automate's model calls: one activity per kind of step (see src/prompts/automate.v1.ts). */
export function createAutomateActivities(client: ModelClient) {
  const ask = structuredAsker(client, AUTOMATE_PROMPT_VERSION);

  async function step<T>(task: ModelTask, prompt: Prompt): Promise<AutomateReply<T>> {
    const reply = await ask<T>(task, prompt);
    return { ...reply, prompt: clip(`${prompt.system}\n\n${prompt.user}`, PROMPT_EXCERPT) };
  }

  return {
    async planTask(input: PlanInput): Promise<AutomateReply<TaskPlan>> {
      const reply = await step<TaskPlan>('automate-plan', planPrompt(input));
      const { plan, successCriteria, actionItems } = reply.value;
      return {
        ...reply,
        value: {
          plan: clip(plan),
          successCriteria: clip(successCriteria, 2_000),
          actionItems: actionItems.slice(0, 20).map((item) => clip(item, 300)),
        },
      };
    },

    async decideAction(input: DecideInput): Promise<AutomateReply<Decision>> {
      const reply = await step<Decision>('automate-act', decidePrompt(input));
      const decision = reply.value;
      const text = (value: string | null, max = 2_000) => (value === null ? null : clip(value, max));
      return {
        ...reply,
        value: {
          ...decision,
          reasoning: clip(decision.reasoning, 2_000),
          ref: text(decision.ref, 100),
          value: text(decision.value),
          dataPath: text(decision.dataPath, 200),
          key: text(decision.key, 50),
          url: text(decision.url),
          text: text(decision.text, MAX_ANSWER),
        },
      };
    },

    async extractData(input: ExtractInput): Promise<AutomateReply<Extraction>> {
      const reply = await step<Extraction>('automate-extract', extractPrompt(input));
      return { ...reply, value: { json: asJsonText(reply.value.json.trim()) } };
    },

    async validateCompletion(input: ValidateInput): Promise<AutomateReply<Validation>> {
      const reply = await step<Validation>('automate-validate', validatePrompt(input));
      const { completionQuality, observation, feedback } = reply.value;
      return { ...reply, value: { completionQuality, observation: clip(observation), feedback: clip(feedback) } };
    },
  };
}

export type AutomateModelActivities = ReturnType<typeof createAutomateActivities>;
