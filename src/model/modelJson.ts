/**
 * The JSON a model answered, out of the Markdown fence some models wrap it in: a whole answer of
 * `` ``` `` or `` ```json ``, the JSON, `` ``` ``, blank space around. Read by hand, not by
 * `/^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/`, which rescans a long blank run from every start in it.
 */
export function parseModelJson(text: string): unknown {
  const answer = text.trim();
  if (answer.length < 6 || !answer.startsWith('```') || !answer.endsWith('```')) return JSON.parse(text);
  const inner = answer.slice(3, -3);
  return JSON.parse((inner.startsWith('json') ? inner.slice(4) : inner).trim());
}
