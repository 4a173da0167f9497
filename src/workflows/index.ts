export { extractMarkdown } from './extractMarkdown';
export type { ExtractMarkdownInput } from './extractMarkdown';
