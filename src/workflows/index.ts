export { extractMarkdown } from './extractMarkdown';
export type { ExtractMarkdownInput } from './extractMarkdown';
export { extractJson, generateJson } from './structuredJson';
export type { StructuredJsonInput } from './structuredJson';
export { research } from './research';
export type { ResearchInput, ResearchRequest } from './research';
