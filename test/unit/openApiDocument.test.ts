import Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import { ERRORS } from '../../src/errors';
import { apiDocument } from '../../src/api/openapi/document';
import { routedDocument, undocumentedRoutes } from '../../src/api/openapi/routedDocument';
import type { ApiState } from '../../src/api/state';

const document = apiDocument();

interface OperationShape {
  security?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

/** Spec §7's exact messages. */
const SPEC_MESSAGES = [
  ERRORS.invalid_json.message,
  ERRORS.url_required.message,
  ERRORS.json_schema_required.message,
  ERRORS.json_schema_invalid.message,
  ERRORS.instructions_required.message,
  ERRORS.url_invalid.message,
  ERRORS.internal_address.message,
  ERRORS.fetch_failed.message,
  ERRORS.conversion_failed.message,
  ERRORS.generation_failed.message,
  ERRORS.page_too_large.message,
  ERRORS.transform_failed.message,
  'task is required',
  'maxIterations must be between 1 and 100',
  'invalid URL format',
];

describe('the API description', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result).toEqual({ valid: true });
  });

  it('has component schemas that compile as JSON Schema 2020-12 in strict mode', () => {
    // A branch may require a property its parent defines (Automate input: `fields` unless cancelled).
    const ajv = new Ajv2020({ strict: true, strictRequired: false, validateFormats: false });
    ajv.addKeyword({ keyword: 'discriminator' });
    // The document's container of schemas, so references into it resolve as in the document.
    ajv.addKeyword({ keyword: 'components' });
    ajv.addSchema({ $id: 'api', components: document.components }, 'api');
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    const failures = Object.keys(schemas).flatMap((name) => {
      try {
        ajv.compile({ $ref: `api#/components/schemas/${name}` });
        return [];
      } catch (err) {
        return [`${name}: ${(err as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
  });

  it('carries every exact message of spec §7', () => {
    const text = JSON.stringify(document);
    expect(SPEC_MESSAGES.filter((message) => !text.includes(JSON.stringify({ error: message })))).toEqual([]);
  });

  it('names a bearer key for every operation but the public ones', () => {
    const open = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => (operation as { security?: unknown[] }).security?.length === 0)
        .map(([method]) => `${method} ${path}`),
    );
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(open.sort()).toEqual(['get /healthz', 'get /openapi.json']);
  });

  it('gives every answer of a keyed operation the rate-limit headers, and a 429 with Retry-After', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item) as [string, OperationShape][]) {
        if (!operation.responses || operation.security?.length === 0) continue;
        if (!operation.responses['429']?.headers?.['retry-after']) missing.push(`${method} ${path} 429 retry-after`);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status === '408') continue;
          for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
            if (!response.headers?.[name]) missing.push(`${method} ${path} ${status} ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the description as served', () => {
  const routers = () => {
    const router = new Router<ApiState>({ prefix: '/v1' });
    const noop = () => undefined;
    router.post('/extract/markdown', noop);
    router.get('/runs/:id/events', noop);
    router.get('/openapi.json', noop);
    return router;
  };

  it('keeps only the routed operations, and paths outside the API prefix', () => {
    const served = routedDocument(document, [routers()], '/v1');
    expect(Object.keys(served.paths).sort()).toEqual([
      '/extract/markdown',
      '/healthz',
      '/openapi.json',
      '/runs/{runId}/events',
    ]);
    expect(served.components).toBe(document.components);
  });

  it('names the routes it does not describe', () => {
    const router = routers();
    router.post('/extract/pdf', () => undefined);
    router.delete('/runs/:id/events', () => undefined);
    expect(undocumentedRoutes(document, [router], '/v1')).toEqual(['post /extract/pdf', 'delete /runs/{}/events']);
  });
});
