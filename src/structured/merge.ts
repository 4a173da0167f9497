/**
 * Answers from the chunks of a long page, merged into one: arrays are concatenated without
 * duplicates; for anything else the chunk whose answer filled the most fields wins, and the
 * others only fill what it left empty. Pure, so workflows can run it.
 */

function filledCount(value: unknown): number {
  if (value === null || value === undefined || value === '') return 0;
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + filledCount(item), 0);
  if (typeof value === 'object')
    return Object.values(value as object).reduce((n: number, item) => n + filledCount(item), 0);
  return 1;
}

function mergeTwo(primary: unknown, secondary: unknown): unknown {
  if (Array.isArray(primary) && Array.isArray(secondary)) {
    const seen = new Set(primary.map((item) => JSON.stringify(item)));
    return [
      ...primary,
      ...secondary.filter((item) => !seen.has(JSON.stringify(item)) && seen.add(JSON.stringify(item))),
    ];
  }
  if (
    primary &&
    secondary &&
    typeof primary === 'object' &&
    typeof secondary === 'object' &&
    !Array.isArray(primary) &&
    !Array.isArray(secondary)
  ) {
    const merged: Record<string, unknown> = { ...(secondary as Record<string, unknown>) };
    for (const [key, value] of Object.entries(primary as Record<string, unknown>))
      merged[key] = key in merged ? mergeTwo(value, merged[key]) : value;
    return merged;
  }
  return primary === null || primary === undefined || primary === '' ? secondary : primary;
}

export function mergeAnswers(answers: unknown[]): unknown {
  const ranked = [...answers].sort((a, b) => filledCount(b) - filledCount(a));
  return ranked.slice(1).reduce((merged, next) => mergeTwo(merged, next), ranked[0]);
}
