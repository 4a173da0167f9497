/** Request, response and cross-process types shared by the API, workflows and activities. */

export type Effort = 'min' | 'standard' | 'max';
export const EFFORTS: readonly Effort[] = ['min', 'standard', 'max'];

export type ContentScope = 'main' | 'full';
export const CONTENT_SCOPES: readonly ContentScope[] = ['main', 'full'];

export interface GeoTarget {
  country?: string;
}

/** Spec 2.5. Every field optional; absent rather than empty when the page lacks it. */
export interface PageMetadata {
  title?: string;
  description?: string;
  author?: string;
  publisher?: string;
  image?: string;
  site_name?: string;
  url?: string;
  type?: string;
  favicon?: string;
  subject?: string;
  keywords?: string[];
  created_at?: string;
  modified_at?: string;
  creator?: string;
  producer?: string;
  page_count?: number;
  pdf_version?: string;
}

/** Spec 2.3, after validation and defaults. */
export interface ExtractMarkdownRequest {
  url: string;
  content: ContentScope;
  effort: Effort;
  geo_target?: GeoTarget;
  metadata: boolean;
  nocache: boolean;
}

/** Spec 2.4. */
export interface ExtractMarkdownResponse {
  content: string;
  url: string;
  metadata?: PageMetadata;
}

/** What the Extract Markdown workflow returns: the Markdown and the metadata apart, for caching. */
export interface ExtractMarkdownResult {
  url: string;
  content: string;
  metadata: PageMetadata;
}

/**
 * What a fetch leaves behind: the page body stays in the memory of the worker process that
 * fetched it, and only this small handle travels through workflow history. `holderQueue`
 * is that process's own task queue, where the activities that read the page must run.
 */
export interface FetchedPage {
  pageId: string;
  holderQueue: string;
  requestedUrl: string;
  finalUrl: string;
  status: number;
  contentType: string;
  bytes: number;
  fetchMs: number;
  /** A plain fetch got a script shell or a bot challenge: a browser would see more. */
  needsBrowser: boolean;
}
