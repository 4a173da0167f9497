import { leaves, maskedData } from './dataPaths';
import { fieldSensitivity, valueSensitivity } from './sensitiveData';

/** A data leaf the model must not see: a credential by its key or its value. */
export function isCredential(path: string, value: string): boolean {
  const key = path.split('.').at(-1) ?? path;
  return (
    fieldSensitivity({ tag: 'input', name: key, label: path.replaceAll('.', ' ') }) === 'credential' ||
    valueSensitivity(value) === 'credential'
  );
}

/** The caller's data as the model may see it. */
export interface ModelData {
  /** The data as JSON with its credentials masked; absent without data. */
  shown?: string;
  /** The credentials themselves: the model must not read them back from a page either. */
  credentials: string[];
}

export function modelData(data: Record<string, unknown> | undefined): ModelData {
  const shown = maskedData(data, isCredential);
  const credentials = leaves(data)
    .map(({ path, value }) => ({ path, value: String(value) }))
    .filter(({ path, value }) => isCredential(path, value))
    .map(({ value }) => value);
  return { ...(shown !== undefined ? { shown } : {}), credentials };
}
