import { ServiceError } from '../../src/errors';
import { checkStructure, MAX_DEPTH, MAX_NODES } from '../../src/extraction/structureBounds';

const nested = (depth: number) =>
  `<html><body>${'<div>'.repeat(depth - 2)}text${'</div>'.repeat(depth - 2)}</body></html>`;

const refusal = (html: string): string | undefined => {
  try {
    checkStructure(html);
    return undefined;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return `${err.code}: ${err.detail}`;
  }
};

describe('checkStructure', () => {
  it(`takes elements nested ${MAX_DEPTH} deep and refuses one level more`, () => {
    expect(refusal(nested(MAX_DEPTH))).toBeUndefined();
    expect(refusal(nested(MAX_DEPTH + 1))).toBe(`page_too_large: elements nested more than ${MAX_DEPTH} deep`);
  });

  it('refuses half a million nested divs', () => {
    expect(refusal(nested(500_000))).toBe(`page_too_large: elements nested more than ${MAX_DEPTH} deep`);
  });

  it('counts depth as the parser builds it: void elements, implied ends and stray end tags nest nothing', () => {
    const flat = `<html><body>${'<p>para<br><img src=x></span>'.repeat(5_000)}<ul>${'<li>item'.repeat(5_000)}</ul></body></html>`;
    expect(refusal(flat)).toBeUndefined();
  });

  it(`refuses more than ${MAX_NODES} nodes, counting elements, attributes, texts and comments`, () => {
    expect(refusal(`<html><body>${'<a href=x>t</a>'.repeat(MAX_NODES / 3)}</body></html>`)).toBe(
      `page_too_large: more than ${MAX_NODES} nodes`,
    );
    expect(refusal(`<html><body>${'<!---->'.repeat(MAX_NODES)}</body></html>`)).toBe(
      `page_too_large: more than ${MAX_NODES} nodes`,
    );
    expect(refusal(`<html><body>${'<i></i>'.repeat(MAX_NODES / 2)}</body></html>`)).toBeUndefined();
  });
});
