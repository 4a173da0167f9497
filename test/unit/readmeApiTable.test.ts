import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiDocument } from '../../src/api/openapi/document';

const README = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

/** `POST /automate/{requestId}/input` and `POST /automate/{requestID}/input` name one route. */
const normalized = (route: string) => route.replace(/\{[^}]*\}/g, '{}');

/** The rows of the README's endpoint table (The API), as `METHOD /path`. */
function readmeEndpoints(): string[] {
  const section = README.slice(README.indexOf('## The API'), README.indexOf('### The Markdown'));
  return [...section.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/[^`]*)` \|/gm)].map(
    ([, method, route]) => `${method} ${normalized(route!)}`,
  );
}

describe("the README's endpoint table", () => {
  // The description's paths are relative to its server, /v1; /healthz is the one outside it.
  const documented = Object.entries(apiDocument().paths)
    .filter(([route]) => route !== '/healthz')
    .flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${normalized(route)}`),
    );

  it('lists every operation of the API description, and no other', () => {
    expect(readmeEndpoints().sort()).toEqual(documented.sort());
  });

  it('lists both Automate operations, as served', () => {
    const automate = ['POST /automate', `POST ${normalized('/automate/{requestId}/input')}`];
    expect(documented).toEqual(expect.arrayContaining(automate));
    expect(readmeEndpoints()).toEqual(expect.arrayContaining(automate));
  });

  it('calls no operation the API serves "on the way"', () => {
    expect(README).not.toMatch(/on the way/i);
  });
});
