import type { ActivityTimeouts } from '../config/timeouts';
import type { ContentScope, Effort, GeoTarget, PageMetadata } from '../types';
import type { PageQueues } from './pageRequest';

/** Extract Markdown: what the API accepts and answers, and what its workflow takes and returns. */

/** Spec §2.3, after validation and defaults. */
export interface ExtractMarkdownRequest {
  url: string;
  content: ContentScope;
  effort: Effort;
  geo_target?: GeoTarget;
  metadata: boolean;
  nocache: boolean;
}

/** Spec §2.4. */
export interface ExtractMarkdownResponse {
  content: string;
  url: string;
  metadata?: PageMetadata;
}

/** The workflow's input: the request and where and how long its activities run. */
export interface ExtractMarkdownInput {
  request: ExtractMarkdownRequest;
  queues: PageQueues;
  /** Absent in runs started before workflows were given their timeouts. */
  timeouts?: ActivityTimeouts;
}

/** What the Extract Markdown workflow returns: the Markdown and the metadata apart, for caching. */
export interface ExtractMarkdownResult {
  url: string;
  content: string;
  metadata: PageMetadata;
}
