import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import { projectRoot } from './localStack';

/**
 * JSON Schemas of what the API answers with (the Extract Markdown body, each event of the
 * Research and Automate streams), generated from their TypeScript declarations so the API
 * description (src/api/openapi/) documents exactly the types the code sends. The generator is
 * a development tool, so the result is kept in src/api/openapi/typeSchemas.json;
 * test/unit/apiTypeSchemas.test.ts fails when it is stale. `npm run openapi:schemas` writes it.
 */

type Schema = Record<string, unknown>;

export interface TypeSchemas {
  /** The payload of each event, by stream and event name. */
  events: { research: Record<string, Schema>; automate: Record<string, Schema> };
  /** Response bodies and the types the schemas refer to, as `#/components/schemas/<name>`. */
  schemas: Record<string, Schema>;
}

const SOURCES = ['src/events/research', 'src/events/automate', 'src/operations/extractMarkdown'];

export const TYPE_SCHEMAS_FILE = path.join(projectRoot(), 'src', 'api', 'openapi', 'typeSchemas.json');

/** Points references at OpenAPI components, and refuses what draft 2020-12 reads otherwise. */
function toComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponents);
  if (typeof value !== 'object' || value === null) return value;
  const result: Schema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$schema') continue;
    if (key === 'items' && Array.isArray(inner)) throw new Error('tuple types read differently in draft 2020-12');
    if (key === '$ref' && typeof inner === 'string') {
      result.$ref = `#/components/schemas/${decodeURIComponent(inner.replace('#/definitions/', ''))}`;
    } else {
      result[key] = toComponents(inner);
    }
  }
  return result;
}

export function generateTypeSchemas(): TypeSchemas {
  const root = projectRoot();
  const generator = createGenerator({
    path: path.join(root, `{${SOURCES.join(',')}}.ts`),
    tsconfig: path.join(root, 'tsconfig.json'),
    skipTypeCheck: true,
    expose: 'export',
    topRef: false,
    jsDoc: 'basic',
    additionalProperties: false,
  });
  const schemas: Record<string, Schema> = {};
  const generate = (type: string): Schema => {
    const { definitions = {}, ...schema } = generator.createSchema(type) as Schema & { definitions?: Schema };
    for (const [name, definition] of Object.entries(definitions)) {
      const converted = toComponents(definition) as Schema;
      if (schemas[name] && JSON.stringify(schemas[name]) !== JSON.stringify(converted))
        throw new Error(`two types are named ${name}`);
      schemas[name] = converted;
    }
    return toComponents(schema) as Schema;
  };
  const events = {
    research: generate('ResearchEvents').properties as Record<string, Schema>,
    automate: generate('AutomateEvents').properties as Record<string, Schema>,
  };
  schemas.ExtractMarkdownResponse = generate('ExtractMarkdownResponse');
  return { events, schemas };
}

if (require.main === module) {
  writeFileSync(TYPE_SCHEMAS_FILE, `${JSON.stringify(generateTypeSchemas(), null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), TYPE_SCHEMAS_FILE)}`);
}
