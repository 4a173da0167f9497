import type { SearchAttributePair } from '@temporalio/common';
import { CREDITS, OPERATION, ORGANIZATION, URL_HOST } from './searchAttributes';

/**
 * How a run is labelled where people look for it (the Temporal Web UI, `temporal workflow
 * list`): its memo, its summary and the search attributes it starts with. One place, so a run
 * started again by `npm run retry` is labelled like one the API started.
 */
export interface RunLabels {
  memo: { organization: string; operation: string; url?: string; credits?: number };
  staticSummary: string;
  typedSearchAttributes: SearchAttributePair[];
}

/** `credits`: what the run was charged, so an operator finds a charge from the Web UI. */
export function runLabels(organization: string, operation: string, url?: string, credits?: number): RunLabels {
  const host = url === undefined ? undefined : hostOf(url);
  return {
    memo: { organization, operation, ...(url ? { url } : {}), ...(credits === undefined ? {} : { credits }) },
    staticSummary: url ? `${operation} ${url}` : operation,
    typedSearchAttributes: [
      { key: ORGANIZATION, value: organization },
      { key: OPERATION, value: operation },
      ...(host ? [{ key: URL_HOST, value: host }] : []),
      ...(credits === undefined ? [] : [{ key: CREDITS, value: credits }]),
    ],
  };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}
