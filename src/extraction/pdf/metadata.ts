import type { PageMetadata } from '../../types';

/** `D:20240131120000+01'00'` to ISO 8601. */
function pdfDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  let zone = 'Z';
  if (tz && tz !== 'Z') zone = `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5) || '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The document information dictionary as the PDF fields of PageMetadata. */
export function pdfMetadata(info: Record<string, unknown>, pageCount: number): PageMetadata {
  const keywords = text(info.Keywords)
    ?.split(/[,;]/)
    .map((k) => k.trim())
    .filter(Boolean);
  const metadata: PageMetadata = {
    title: text(info.Title),
    author: text(info.Author),
    subject: text(info.Subject),
    keywords: keywords && keywords.length > 0 ? keywords : undefined,
    created_at: pdfDate(info.CreationDate),
    modified_at: pdfDate(info.ModDate),
    creator: text(info.Creator),
    producer: text(info.Producer),
    page_count: pageCount,
    pdf_version: text(info.PDFFormatVersion),
  };
  for (const key of Object.keys(metadata) as (keyof PageMetadata)[]) {
    if (metadata[key] === undefined) delete metadata[key];
  }
  return metadata;
}
