import { stringify } from 'yaml';
import type { PageMetadata } from '../types';

/** Metadata as a YAML front-matter block; the YAML library does the quoting and escaping. */
export function withFrontMatter(markdown: string, metadata: PageMetadata): string {
  if (Object.keys(metadata).length === 0) return markdown;
  const yaml = stringify(metadata, { lineWidth: 0 });
  return `---\n${yaml}---\n\n${markdown}`;
}
