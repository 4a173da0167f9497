import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';
import type { StreamedOperationName } from '../../src/events/streams';

/**
 * JSON Schemas of the official client's event types (`ResearchEvent`, `AutomateEvent` in
 * @tabstack/sdk's resources/agent.d.ts), generated from its declarations, so every event a
 * test sees is checked against the types the client gives its users. No extra properties are
 * allowed: a misspelt field fails. Generating takes seconds, so the schemas are cached per
 * SDK version under node_modules/.cache.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const SDK = path.join(ROOT, 'node_modules', '@tabstack', 'sdk');
/** Events the spec defines that the client's union lacks, with the payload the spec gives (6.1). */
const SPEC_ONLY: Record<string, object> = {
  'automate start': {
    type: 'object',
    properties: {
      event: { const: 'start' },
      data: {
        type: 'object',
        properties: { task: { type: 'string' }, url: { type: 'string' }, message: { type: 'string' } },
        required: ['task', 'url', 'message'],
        additionalProperties: false,
      },
    },
    required: ['event', 'data'],
    additionalProperties: false,
  },
};
const TYPES: Record<StreamedOperationName, string> = { research: 'ResearchEvent', automate: 'AutomateEvent' };

function schemas(): Record<StreamedOperationName, object> {
  const { version } = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')) as { version: string };
  const cacheDir = path.join(ROOT, 'node_modules', '.cache', 'webloom');
  const cached = path.join(cacheDir, `tabstack-sdk-${version}-event-schemas.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Record<StreamedOperationName, object>;
  const generator = createGenerator({
    path: path.join(SDK, 'resources', 'agent.d.ts'),
    skipTypeCheck: true,
    additionalProperties: false,
    expose: 'all',
  });
  const generated = {
    research: generator.createSchema(TYPES.research),
    automate: generator.createSchema(TYPES.automate),
  };
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cached, JSON.stringify(generated));
  return generated;
}

export type EventCheck = (operation: StreamedOperationName, event: { event: string; data: unknown }) => string[];

interface Definition {
  anyOf?: { $ref: string }[];
  properties?: Record<string, { const?: string; $ref?: string; type?: string }>;
  required?: string[];
  additionalProperties?: boolean;
}

interface GeneratedSchema {
  definitions: Record<string, Definition>;
}

const definitionOf = (schema: GeneratedSchema, ref: string): Definition =>
  schema.definitions[decodeURIComponent(ref.replace('#/definitions/', ''))]!;

/**
 * Our Automate events carry a `message` the client's types leave out of most payloads (see
 * AutomateEvents in src/events/automate.ts): each payload that is a closed object takes it, and
 * must have it, so a stream check also finds an event without one. `done` is open, and empty.
 */
function withMessages(schema: GeneratedSchema): GeneratedSchema {
  for (const { $ref } of schema.definitions[TYPES.automate]!.anyOf!) {
    const dataRef = definitionOf(schema, $ref).properties?.data?.$ref;
    const data = dataRef ? definitionOf(schema, dataRef) : undefined;
    if (!data?.properties || data.additionalProperties !== false) continue;
    data.properties.message = { type: 'string' };
    data.required = [...new Set([...(data.required ?? []), 'message'])];
  }
  return schema;
}

/** A checker of events against the client's types: the list of problems, empty when the event fits. */
export function sdkEventChecker(): EventCheck {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = new Map<string, ValidateFunction>(
    Object.entries(SPEC_ONLY).map(([key, schema]) => [key, ajv.compile(schema)]),
  );
  for (const [operation, generated] of Object.entries(schemas()) as [StreamedOperationName, GeneratedSchema][]) {
    const schema = operation === 'automate' ? withMessages(generated) : generated;
    ajv.addSchema(schema, operation);
    // The union's members, each checked alone, so a problem is reported against the event's own type.
    for (const { $ref } of schema.definitions[TYPES[operation]]!.anyOf!) {
      const member = definitionOf(schema, $ref);
      validators.set(`${operation} ${member.properties!.event!.const!}`, ajv.compile({ $ref: `${operation}${$ref}` }));
    }
  }
  return (operation, event) => {
    const validate = validators.get(`${operation} ${event.event}`);
    if (!validate) return [`${event.event} is no ${TYPES[operation]} type`];
    if (validate(event)) return [];
    return (validate.errors ?? []).map(
      (error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
    );
  };
}
