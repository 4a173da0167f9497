/** The operations the page offers and their request fields, as the spec (section 2) lists them. */

export type OperationId = 'extract-markdown' | 'extract-json' | 'generate-json' | 'research' | 'automate';

export type FieldKind = 'url' | 'text' | 'textarea' | 'select' | 'checkbox' | 'number' | 'json' | 'schema' | 'list';

export interface FieldSpec {
  /** The body's field; `geo_target.country` nests. */
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  hint?: string;
  initial?: string;
  min?: number;
  max?: number;
}

export interface OperationSpec {
  id: OperationId;
  title: string;
  /** Under /v1. */
  path: string;
  streamed: boolean;
  summary: string;
  fields: FieldSpec[];
}

const EXAMPLE_SCHEMA = JSON.stringify(
  {
    type: 'object',
    properties: { title: { type: 'string' }, summary: { type: 'string' } },
    required: ['title'],
  },
  null,
  2,
);

const url: FieldSpec = { name: 'url', label: 'Page URL', kind: 'url', required: true, hint: 'http or https' };
const effort: FieldSpec = {
  name: 'effort',
  label: 'Effort',
  kind: 'select',
  options: ['min', 'standard', 'max'],
  hint: 'min: fastest; standard (default): with fallbacks; max: full browser rendering',
};
const country: FieldSpec = {
  name: 'geo_target.country',
  label: 'Country (geotargeting)',
  kind: 'text',
  hint: 'Two letters, e.g. DE; empty for none',
};
const nocache: FieldSpec = { name: 'nocache', label: 'Bypass the cache', kind: 'checkbox' };
const schema: FieldSpec = {
  name: 'json_schema',
  label: 'JSON schema',
  kind: 'schema',
  required: true,
  initial: EXAMPLE_SCHEMA,
};

export const OPERATIONS: OperationSpec[] = [
  {
    id: 'extract-markdown',
    title: 'Extract Markdown',
    path: '/extract/markdown',
    streamed: false,
    summary: 'Fetch a page and turn it into Markdown.',
    fields: [
      url,
      {
        name: 'content',
        label: 'Content',
        kind: 'select',
        options: ['main', 'full'],
        hint: 'main (default): the article; full: the whole page',
      },
      effort,
      country,
      { name: 'metadata', label: 'Page metadata in its own field', kind: 'checkbox' },
      nocache,
    ],
  },
  {
    id: 'extract-json',
    title: 'Extract JSON',
    path: '/extract/json',
    streamed: false,
    summary: 'Fetch a page and extract data shaped by a JSON schema.',
    fields: [url, schema, effort, country, nocache],
  },
  {
    id: 'generate-json',
    title: 'Generate JSON',
    path: '/generate/json',
    streamed: false,
    summary: 'Fetch a page and transform its data by instructions into a JSON schema.',
    fields: [
      url,
      schema,
      {
        name: 'instructions',
        label: 'Instructions',
        kind: 'textarea',
        required: true,
        hint: 'At most 20,000 characters',
      },
      effort,
      country,
      nocache,
    ],
  },
  {
    id: 'research',
    title: 'Research',
    path: '/research',
    streamed: true,
    summary: 'Search the web, read the sources and write a cited report, live.',
    fields: [
      { name: 'query', label: 'Question', kind: 'textarea', required: true },
      {
        name: 'mode',
        label: 'Mode',
        kind: 'select',
        options: ['fast', 'balanced'],
        hint: 'fast: few searches; balanced: several iterations',
      },
      { name: 'fetch_timeout', label: 'Page fetch timeout (seconds)', kind: 'number', min: 1, max: 600 },
      nocache,
    ],
  },
  {
    id: 'automate',
    title: 'Automate',
    path: '/automate',
    streamed: true,
    summary: 'Let an agent do a task in a browser, live; interactive runs ask you for form data.',
    fields: [
      { name: 'task', label: 'Task', kind: 'textarea', required: true },
      { ...url, required: false, label: 'Starting URL' },
      { name: 'data', label: 'Data (JSON object)', kind: 'json', hint: 'Context for form filling' },
      { name: 'guardrails', label: 'Guardrails', kind: 'textarea' },
      {
        name: 'maxIterations',
        label: 'Most iterations',
        kind: 'number',
        min: 1,
        max: 100,
        hint: '1 to 100; 50 by default',
      },
      {
        name: 'maxValidationAttempts',
        label: 'Most validation attempts',
        kind: 'number',
        min: 1,
        max: 10,
        hint: '1 to 10; 3 by default',
      },
      country,
      { name: 'interactive', label: 'Interactive: ask me for form data', kind: 'checkbox' },
      {
        name: 'trusted_hostnames',
        label: 'Trusted hostnames',
        kind: 'list',
        hint: 'Comma-separated; the action firewall lets page content fill any field there',
      },
      { name: 'unsafe_mode', label: 'Unsafe mode: no action firewall', kind: 'checkbox' },
    ],
  },
];

export const operationById = (id: string): OperationSpec | undefined => OPERATIONS.find((op) => op.id === id);

/** A field's value as the body takes it; undefined leaves it out (the service's default). */
export type FieldValue = string | number | boolean | string[] | Record<string, unknown> | undefined;

/** The request body from the fields' values: empty ones left out, `a.b` names nested. */
export function requestBody(values: Map<string, FieldValue>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of values) {
    if (value === undefined || value === '' || value === false) continue;
    const [outer, inner] = name.split('.');
    if (inner) body[outer!] = { ...(body[outer!] as Record<string, unknown> | undefined), [inner]: value };
    else body[outer!] = value;
  }
  return body;
}
