import type { Middleware } from 'koa';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApiDeps } from '../deps';
import type { SchemaObject } from '../requestBody/requestBody';
import {
  automateBody,
  extractJsonBody,
  extractMarkdownBody,
  generateJsonBody,
  researchBody,
} from '../requestBody/requestBodies';
import { automateRoute } from '../routes/automate';
import { extractMarkdownRoute } from '../routes/extractMarkdown';
import { researchRoute } from '../routes/research';
import { structuredJsonRoute } from '../routes/structuredJson';
import type { ApiState } from '../state';

/**
 * The operations as MCP tools. Each is served by its /v1 route, given the tool's arguments as its
 * body, and takes the body's schema as its input schema: the declarations the routes read requests
 * with (src/api/requestBody/requestBodies.ts), so a tool cannot accept or refuse what the route does not.
 */

/** A tool answered with its route's JSON body, or one whose route starts a run and streams its events. */
export type ToolKind = 'answer' | 'stream';

export interface OperationTool {
  name: string;
  title: string;
  description: string;
  inputSchema: SchemaObject;
  kind: ToolKind;
  /** The route that serves it, made from the dependencies it should use. */
  route(deps: ApiDeps): Middleware<ApiState>;
}

export const OPERATION_TOOLS: readonly OperationTool[] = [
  {
    name: 'extract_markdown',
    title: 'Extract Markdown',
    description:
      "Fetches a web page (HTML or PDF) and returns its content as Markdown, with the page's metadata as YAML " +
      'front matter or, with `metadata: true`, in its own field.',
    inputSchema: extractMarkdownBody.schema,
    kind: 'answer',
    route: extractMarkdownRoute,
  },
  {
    name: 'extract_json',
    title: 'Extract JSON',
    description: 'Fetches a web page and extracts data matching the given JSON Schema from it.',
    inputSchema: extractJsonBody.schema,
    kind: 'answer',
    route: (deps) => structuredJsonRoute(deps, 'extract-json'),
  },
  {
    name: 'generate_json',
    title: 'Generate JSON',
    description: 'Fetches a web page and transforms its content into the given JSON Schema following the instructions.',
    inputSchema: generateJsonBody.schema,
    kind: 'answer',
    route: (deps) => structuredJsonRoute(deps, 'generate-json'),
  },
  {
    name: 'research',
    title: 'Research',
    description:
      'Searches the web, reads and analyzes pages and writes a report citing them. Reports progress while it ' +
      'runs (`fast` takes about a minute, `balanced` several); the result is the report and its sources.',
    inputSchema: researchBody.schema,
    kind: 'stream',
    route: researchRoute,
  },
  {
    name: 'automate',
    title: 'Automate',
    description:
      'Runs a browser task described in natural language, with `data` to fill forms from and `guardrails` it ' +
      'must keep. Reports each step as progress; the result is its final answer. With `interactive: true` the ' +
      'agent may ask the person for form values (card numbers, codes) through the client; they never reach the model.',
    inputSchema: automateBody.schema,
    kind: 'stream',
    route: automateRoute,
  },
];

/** The tools as `tools/list` gives them. */
export function listedTools(): Tool[] {
  return OPERATION_TOOLS.map(({ name, title, description, inputSchema }) => ({
    name,
    title,
    description,
    inputSchema: inputSchema as Tool['inputSchema'],
  }));
}
