export { extractMarkdown } from './extractMarkdown';
export { extractJson, generateJson } from './structuredJson';
export { research } from './research';
export type { ResearchInput, ResearchRequest } from '../operations/research';
export { automate } from './automate';
