/**
 * The jobs the service gives a model. Each may run on its own model: `OPENAI_MODEL_<TASK>` (the
 * task in upper case, `-` as `_`, e.g. OPENAI_MODEL_EXTRACT_JSON) overrides OPENAI_MODEL for it.
 */
export const MODEL_TASKS = [
  'extract-json',
  'generate-json',
  'research-plan',
  'research-analyze',
  'research-evaluate',
  'research-outline',
  'research-write',
  'research-judge',
  'automate-plan',
  'automate-act',
  'automate-extract',
  'automate-validate',
] as const;
export type ModelTask = (typeof MODEL_TASKS)[number];

export function taskModelVariable(task: ModelTask): string {
  return `OPENAI_MODEL_${task.toUpperCase().replaceAll('-', '_')}`;
}
