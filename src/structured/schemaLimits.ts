/**
 * What a caller's JSON Schema may cost before we compile it. Ajv compiles and validates by
 * recursion, so a schema nested thousands deep overflows the stack while compiling, and a `$ref`
 * that comes back to itself without descending into the data (`{"$ref": "#"}`) overflows it on
 * every validation. Both are refused here, in the API, with a reason the caller can act on.
 */

/** Nesting of the schema document, arrays and objects alike; real schemas stay far below it. */
export const MAX_SCHEMA_DEPTH = 64;
/** Objects, arrays and values in the schema document. */
export const MAX_SCHEMA_NODES = 20_000;
/**
 * Subschemas one value of the data may be checked against (through allOf/anyOf/oneOf, if/then/
 * else, not and $ref), so that `allOf` of two refs to a definition that does the same, repeated,
 * cannot make one check cost 2^n.
 */
export const MAX_SCHEMAS_PER_VALUE = 2_000;

/**
 * Nesting of a value checked against a schema. Deeper values cannot be checked (ajv recurses per
 * level) nor carried (JSON.stringify overflows past a few thousand levels), so they fail the check.
 */
export const MAX_VALUE_DEPTH = 512;

export class SchemaRefused extends Error {
  override readonly name = 'SchemaRefused';
}

type Node = Record<string, unknown>;

const isObject = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose subschemas apply to the same value as their parent (applicators in place). */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'];
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'];
const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];

/** Keywords whose values are data, not schemas: never read as subschemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);
/** Keywords whose values map names to subschemas: their keys are names, not keywords. */
const MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

/** The base every relative `$id` and `$ref` of the caller's document resolves against. */
const DOCUMENT_BASE = 'https://schema.invalid/';

function withoutFragment(url: URL): string {
  const hash = url.href.indexOf('#');
  return hash < 0 ? url.href : url.href.slice(0, hash);
}

/** True when the value nests arrays and objects deeper than `max` levels. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Depth and size first: everything after walks the document recursively. */
function checkShape(schema: unknown): void {
  if (nestedDeeperThan(schema, MAX_SCHEMA_DEPTH))
    throw new SchemaRefused(`the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  let nodes = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (++nodes > MAX_SCHEMA_NODES) throw new SchemaRefused(`the schema has more than ${MAX_SCHEMA_NODES} nodes`);
    if (typeof value === 'object' && value !== null) stack.push(...Object.values(value));
  }
}

/** Every schema object of the document by its base URI, `$id`s and anchors resolved as ajv does. */
class SchemaIndex {
  readonly resources = new Map<string, Node>();
  readonly anchors = new Map<string, Node>();
  readonly bases = new Map<Node, URL>();

  constructor(root: Node) {
    this.resources.set(DOCUMENT_BASE, root);
    this.visit(root, new URL(DOCUMENT_BASE));
  }

  private visit(node: Node, parentBase: URL): void {
    let base = parentBase;
    if (typeof node.$id === 'string') {
      let id: URL;
      try {
        id = new URL(node.$id, parentBase);
      } catch {
        throw new SchemaRefused(`$id "${node.$id.slice(0, 100)}" is not a URI`);
      }
      // A draft-07 `$id: "#name"` is a plain-name anchor, not a new resource.
      if (node.$id.startsWith('#')) this.anchors.set(id.href, node);
      else {
        base = id;
        this.resources.set(withoutFragment(id), node);
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor']) {
      const anchor = node[keyword];
      if (typeof anchor === 'string') this.anchors.set(new URL(`#${anchor}`, base).href, node);
    }
    this.bases.set(node, base);
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      const children =
        MAP_KEYWORDS.has(key) && isObject(value) ? Object.values(value) : Array.isArray(value) ? value : [value];
      for (const child of children) if (isObject(child)) this.visit(child, base);
    }
  }

  /** The schema a reference names, or undefined when it is not in the document. */
  resolve(ref: string, from: Node): Node | undefined {
    let target: URL;
    try {
      target = new URL(ref, this.bases.get(from) ?? DOCUMENT_BASE);
    } catch {
      return undefined;
    }
    const fragment = decodeURIComponent(target.hash.slice(1));
    const resource = this.resources.get(withoutFragment(target));
    if (!fragment) return resource;
    if (!fragment.startsWith('/')) return this.anchors.get(target.href);
    let node: unknown = resource;
    for (const token of fragment.slice(1).split('/')) {
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
    }
    return isObject(node) ? node : undefined;
  }
}

/** The subschemas that apply to the same value as `node` (its references included). */
function inPlace(node: Node, index: SchemaIndex): Node[] {
  const found: Node[] = [];
  for (const key of IN_PLACE_LISTS)
    if (Array.isArray(node[key])) found.push(...(node[key] as unknown[]).filter(isObject));
  for (const key of IN_PLACE_SINGLE) if (isObject(node[key])) found.push(node[key] as Node);
  for (const key of IN_PLACE_MAPS)
    if (isObject(node[key])) found.push(...Object.values(node[key] as Node).filter(isObject));
  for (const key of REF_KEYWORDS) {
    const ref = node[key];
    if (typeof ref !== 'string') continue;
    const target = index.resolve(ref, node);
    if (!target)
      throw new SchemaRefused(
        `${key} "${ref.slice(0, 100)}" does not name a part of the schema (only references within it are read)`,
      );
    found.push(target);
  }
  return found;
}

/**
 * Walks the in-place graph from every subschema. A cycle in it is a reference that comes back
 * to itself on the same value: validation would never end. Counts how many subschemas one value
 * is checked against, each path counted, so a shared definition reached twice counts twice.
 */
function checkRecursion(root: Node): void {
  const index = new SchemaIndex(root);
  const weight = new Map<Node, number>();
  const onPath = new Set<Node>();
  const measure = (node: Node): number => {
    const known = weight.get(node);
    if (known !== undefined) return known;
    if (onPath.has(node))
      throw new SchemaRefused(
        'a $ref refers back to itself without descending into the data, so validation would never end',
      );
    if (onPath.size >= MAX_SCHEMAS_PER_VALUE)
      throw new SchemaRefused(`one value would be checked against more than ${MAX_SCHEMAS_PER_VALUE} subschemas`);
    onPath.add(node);
    let total = 1;
    for (const next of inPlace(node, index)) {
      total += measure(next);
      if (total > MAX_SCHEMAS_PER_VALUE)
        throw new SchemaRefused(`one value would be checked against more than ${MAX_SCHEMAS_PER_VALUE} subschemas`);
    }
    onPath.delete(node);
    weight.set(node, total);
    return total;
  };
  for (const node of index.bases.keys()) measure(node);
}

/** Throws SchemaRefused, with the reason, for a schema beyond the limits above. */
export function checkSchemaLimits(schema: Node): void {
  checkShape(schema);
  checkRecursion(schema);
}
