/**
 * Page content cut to what a model request can carry. Tokens are estimated at four characters
 * each (close for English prose with common tokenizers, conservative for code and markup), so
 * no tokenizer has to match the configured model.
 */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Splits at paragraph breaks into pieces of at most `maxTokens`; a longer paragraph is cut. */
export function splitIntoChunks(text: string, maxTokens: number): string[] {
  const limit = maxTokens * CHARS_PER_TOKEN;
  const pieces = text
    .split(/\n{2,}/)
    .flatMap((block) =>
      block.length <= limit
        ? [block]
        : Array.from({ length: Math.ceil(block.length / limit) }, (_, i) => block.slice(i * limit, (i + 1) * limit)),
    );
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current && current.length + piece.length + 2 > limit) {
      chunks.push(current);
      current = piece;
    } else {
      current = current ? `${current}\n\n${piece}` : piece;
    }
  }
  if (current.trim()) chunks.push(current);
  return chunks;
}

/**
 * The main content first; then, while the budget allows, the rest of the page (paragraphs of
 * the full page not already in the main content), where fields such as prices or authors often sit.
 */
export function fitToBudget(main: string, full: string, maxTokens: number): string {
  const limit = maxTokens * CHARS_PER_TOKEN;
  if (main.length >= limit) return main;
  const inMain = new Set(main.split(/\n{2,}/).map((block) => block.trim()));
  let result = main;
  for (const block of full.split(/\n{2,}/)) {
    const trimmed = block.trim();
    if (!trimmed || inMain.has(trimmed)) continue;
    if (result.length + trimmed.length + 2 > limit) break;
    result += `\n\n${trimmed}`;
  }
  return result;
}
