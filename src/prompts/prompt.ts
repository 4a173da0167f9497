/** One model step's prompt: what it says, and the JSON Schema its answer must match. */
export interface Prompt {
  system: string;
  user: string;
  /** The answer's JSON Schema, strict: every property required, nothing else allowed. */
  schema: Record<string, unknown>;
  schemaName: string;
}

/** A strict object schema: every property required, no other allowed (what strict structured output demands). */
export function object(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export const JSON_RULE =
  '- Answer with one JSON object matching the given schema exactly. No prose around it, no Markdown fences.';
