import { defineUpdate } from '@temporalio/workflow';
import type { FieldValue } from './automate';

/**
 * Submit Input Response (spec 2.10, 2.11, 4 rules 2, 5 and 6): how an answer reaches the
 * automate run that asked. The request id names the run (its ULID), so any API process finds
 * it, and an answer is an Update whose validator refuses ids the run is not waiting on: a
 * refused Update leaves no history, and the API answers 410 for it.
 */

/** Spec 2.10 after validation. */
export interface InputAnswer {
  requestId: string;
  fields: FieldValue[];
  cancelled: boolean;
}

export interface InputAccepted {
  status: 'accepted';
}

export const submitInputUpdate = defineUpdate<InputAccepted, [InputAnswer]>('webloom.automate.input');

const REQUEST_ID = /^([0-9A-HJKMNP-TV-Z]{26})-([0-9a-f]{32})$/;

/** `<run ULID>-<32 hex>`: the run, and a part no one can guess. */
export function requestIdOf(runUlid: string, nonce: string): string {
  return `${runUlid}-${nonce}`;
}

/** The ULID of the run a request id belongs to, or undefined for an id that cannot be one of ours. */
export function runOfRequestId(requestId: string): string | undefined {
  return REQUEST_ID.exec(requestId)?.[1];
}
