import type { JsonSchema } from '../structured/schema';
import type { ActivityTimeouts } from '../config/timeouts';
import type { PageQueues, PageRequest } from './pageRequest';

/**
 * Extract JSON and Generate JSON: the request after validation and defaults, and the workflow's
 * input. Both answer with the caller's schema-shaped object.
 */

/** Spec §2.6 and 2.7 (`instructions` only for Generate JSON). */
export type StructuredJsonRequest = PageRequest & { json_schema: JsonSchema; instructions?: string };

export interface StructuredJsonInput {
  request: StructuredJsonRequest;
  queues: PageQueues & { model: string };
  /** Answers failing the schema are shown their errors and asked again this many times. */
  repairAttempts: number;
  /** Absent in runs started before workflows were given their timeouts. */
  timeouts?: ActivityTimeouts;
}
