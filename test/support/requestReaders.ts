import { ServiceError } from '../../src/errors';
import { apiDocument } from '../../src/api/openapi/document';
import { parseAutomateRequest, parseInputAnswer } from '../../src/api/routes/automate';
import { parseExtractMarkdown } from '../../src/api/routes/extractMarkdown';
import { parseResearchRequest } from '../../src/api/routes/research';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';

/**
 * Each route's request reader by the operation the API description names it, with the bodies and
 * 400 messages that description gives: what the request-body tests check readers against.
 */

export type Parse = (body: Record<string, unknown>) => object;
export type Schema = Record<string, unknown>;

/** By operationId. Automate's readers join here with its routes. */
export const READERS: Record<string, Parse> = {
  extractMarkdown: parseExtractMarkdown,
  extractJson: (body) => parseStructuredRequest(body, false),
  generateJson: (body) => parseStructuredRequest(body, true),
  research: parseResearchRequest,
  automate: parseAutomateRequest,
  automateInput: (body) => parseInputAnswer('request', body),
};
export const AWAITING_ROUTES: string[] = [];

export interface Operation {
  operationId: string;
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, { content?: { 'application/json'?: { examples?: Record<string, { value: unknown }> } } }>;
}

const document = apiDocument();
export const schemas = (document.components as { schemas: Record<string, Schema> }).schemas;
const operations = Object.values(document.paths).flatMap((item) =>
  Object.values(item).filter((value): value is Operation => typeof value === 'object' && 'operationId' in value!),
);
export const withBodies = operations.filter((operation) => operation.requestBody);

/** The schema of an operation's request body. */
export function bodySchema(operation: Operation): Schema {
  return schemas[operation.requestBody!.content['application/json'].schema.$ref.split('/').at(-1)!]!;
}

/** The messages an operation's 400 answers can carry, as its description lists them. */
export function badRequestMessages(operation: Operation): string[] {
  const examples = operation.responses['400']?.content?.['application/json']?.examples ?? {};
  return Object.values(examples).map((example) => (example.value as { error: string }).error);
}

export function outcome(
  parse: Parse,
  body: Record<string, unknown>,
): { read: object } | { status: number; error: string } {
  try {
    return { read: parse(body) };
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, error: err.message };
    throw err;
  }
}
