import type { PageMetadata } from '../types';

/** A page read as Markdown: its content and what the page says about itself. */
export interface MarkdownReading {
  content: string;
  metadata: PageMetadata;
}
