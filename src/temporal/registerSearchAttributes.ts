import type { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType as indexedType } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTES } from './searchAttributes';

type Operator = Pick<Connection, 'operatorService'>;

/** Every attribute of the service by name, with its type as the operator service spells it. */
export function indexedSearchAttributes(): Record<string, number> {
  return Object.fromEntries(SEARCH_ATTRIBUTES.map(({ name, type }) => [name, indexedType(type)!]));
}

/** The attributes the namespace lacks; throws on one registered with another type. */
async function missingAttributes(connection: Operator, namespace: string): Promise<Record<string, number>> {
  const registered = await connection.operatorService.listSearchAttributes({ namespace });
  const known: Record<string, number> = { ...registered.systemAttributes, ...registered.customAttributes };
  const missing: Record<string, number> = {};
  for (const { name, type } of SEARCH_ATTRIBUTES) {
    const existing = known[name];
    if (existing === undefined) missing[name] = indexedType(type)!;
    else if (existing !== indexedType(type)) {
      const actual = Object.values(SearchAttributeType).find((other) => indexedType(other) === existing) ?? existing;
      throw new Error(
        `search attribute ${name} is registered as ${actual} in namespace ${namespace}; webloom needs ${type}`,
      );
    }
  }
  return missing;
}

/**
 * Registers the service's search attributes (src/temporal/searchAttributes.ts) in a namespace through the
 * operator service, only those it lacks, so it can run at every start. Runs set them: on a
 * namespace without them no run can start. Needs operator rights on the cluster (Temporal Cloud
 * takes them through its own tools instead). Returns the names it added.
 */
export async function registerSearchAttributes(connection: Operator, namespace: string): Promise<string[]> {
  const missing = await missingAttributes(connection, namespace);
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    // Another process may have registered them meanwhile.
    if (Object.keys(await missingAttributes(connection, namespace)).length > 0) throw err;
  }
  return names;
}
