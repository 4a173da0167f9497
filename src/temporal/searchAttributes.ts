import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The search attributes of every run, by which the Temporal Web UI and `temporal workflow list`
 * find runs: `organization = "acme" AND outcome = "failed"`. The one list of their names and
 * types; the dev server, `registerSearchAttributes` and any deployment register exactly these.
 * Imported by workflow code, so nothing here touches Node.
 */

/** The organization of the API key that started the run. */
export const ORGANIZATION = defineSearchAttributeKey('organization', SearchAttributeType.KEYWORD);
/** The operation, as in the workflow id: `extract-markdown`, `extract-json`, `generate-json`, `research`. */
export const OPERATION = defineSearchAttributeKey('operation', SearchAttributeType.KEYWORD);
/** The host of the request's URL; unset for runs without one (Research). */
export const URL_HOST = defineSearchAttributeKey('urlHost', SearchAttributeType.KEYWORD);
/** How the run ended, as the workflow saw it (see Outcome); unset while running, timed out or terminated. */
export const OUTCOME = defineSearchAttributeKey('outcome', SearchAttributeType.KEYWORD);
/** Why a failed run failed: the failure's code (`fetch_failed`, `generation_failed`, ...). */
export const ERROR_CODE = defineSearchAttributeKey('errorCode', SearchAttributeType.KEYWORD);

/** Credits the run was charged when it started (unset when billing is off); a refund is in the ledger. */
export const CREDITS = defineSearchAttributeKey('credits', SearchAttributeType.INT);

/** Every attribute the service sets, for registering them in a namespace. */
export const SEARCH_ATTRIBUTES = [ORGANIZATION, OPERATION, URL_HOST, OUTCOME, ERROR_CODE, CREDITS] as const;

export type Outcome = 'completed' | 'failed' | 'cancelled';

/** The CLI's spelling of a search attribute type: `KEYWORD` is `Keyword`, `KEYWORD_LIST` is `KeywordList`. */
export function searchAttributeCliType(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}
