export { extractMarkdown } from './extractMarkdown';
export { extractJson, generateJson } from './structuredJson';
