/** Request, response and cross-process types shared by the API, workflows and activities. */

export type Effort = 'min' | 'standard' | 'max';
export const EFFORTS: readonly Effort[] = ['min', 'standard', 'max'];

export type ContentScope = 'main' | 'full';
export const CONTENT_SCOPES: readonly ContentScope[] = ['main', 'full'];

export interface GeoTarget {
  country?: string;
}

/** Spec §2.5. Every field optional; absent rather than empty when the page lacks it. */
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

/**
 * What fetching or rendering a page returns: a few facts about the page for the run's history,
 * and the page already read as the operation asked (the body itself stays in the worker).
 */
export interface ObtainedPage<T> {
  requestedUrl: string;
  finalUrl: string;
  status: number;
  contentType: string;
  bytes: number;
  /** Time spent downloading or rendering, apart from reading. */
  obtainMs: number;
  /**
   * Time spent reading it (waiting for a conversion thread included): with `obtainMs`, the work
   * itself, which the benchmarks set against what Temporal adds. Absent from older runs.
   */
  readMs?: number;
  /** A plain fetch got a script shell or a bot challenge: a browser would see more. */
  needsBrowser: boolean;
  /** Read from the result cache: nothing was downloaded. */
  cached?: boolean;
  reading: T;
}
