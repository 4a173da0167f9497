/**
 * The caller's `data` as the agent uses it: values are named by path (`user.email`,
 * `items.0.name`), so the workflow types the real value and the model need not copy it; secret
 * values are shown to the model masked. Pure, so workflow code may use it.
 */

export type Leaf = string | number | boolean;

/** Every leaf of `data` with its path, depth first. */
export function leaves(data: unknown, prefix = ''): { path: string; value: Leaf }[] {
  if (typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean')
    return prefix ? [{ path: prefix, value: data }] : [];
  if (!data || typeof data !== 'object') return [];
  return Object.entries(data as Record<string, unknown>).flatMap(([key, value]) =>
    leaves(value, prefix ? `${prefix}.${key}` : key),
  );
}

/** The leaf at `path` as text, or undefined when there is none. */
export function valueAt(data: unknown, path: string): string | undefined {
  const trimmed = path.trim().replace(/^data\./, '');
  const leaf = leaves(data).find((entry) => entry.path === trimmed);
  return leaf === undefined ? undefined : String(leaf.value);
}

/** The path of a leaf whose value is exactly `value`, if the model copied one instead of naming it. */
export function pathOfValue(data: unknown, value: string): string | undefined {
  return leaves(data).find((entry) => String(entry.value) === value)?.path;
}

/** `data` as the model sees it: JSON with each leaf `isSecret` accepts replaced by a placeholder. */
export function maskedData(data: unknown, isSecret: (path: string, value: string) => boolean): string | undefined {
  if (data === undefined) return undefined;
  const mask = (value: unknown, prefix: string): unknown => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      return isSecret(prefix, String(value)) ? '<secret: fill it by its dataPath>' : value;
    if (Array.isArray(value)) return value.map((item, i) => mask(item, prefix ? `${prefix}.${i}` : String(i)));
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          mask(item, prefix ? `${prefix}.${key}` : key),
        ]),
      );
    return value;
  };
  return JSON.stringify(mask(data, ''), null, 2);
}
