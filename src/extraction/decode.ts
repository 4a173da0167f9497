import sniffHtmlEncoding from 'html-encoding-sniffer';
import { decode as decodeBytes, labelToName } from 'whatwg-encoding';

export interface HtmlEncoding {
  /** WHATWG encoding name, as `document.characterSet` spells it. */
  name: string;
  /** False when nothing declared it (BOM, HTTP charset, `<meta charset>`) and the bytes decided. */
  declared: boolean;
}

/**
 * The encoding a browser would decide on: byte-order mark, then the HTTP charset, then a
 * `<meta charset>` prescan. Pages that declare nothing are taken as UTF-8 when they are valid
 * UTF-8 (most of today's web), else as windows-1252, the HTML standard's fallback.
 */
export function htmlEncoding(body: Uint8Array, contentType: string): HtmlEncoding {
  const label = /charset\s*=\s*["']?([^;"'\s]+)/i.exec(contentType)?.[1];
  const transportLayerEncodingLabel = label && labelToName(label) ? label : undefined;
  const undeclared = 'x-undeclared';
  const name = sniffHtmlEncoding(body, { transportLayerEncodingLabel, defaultEncoding: undeclared });
  if (name !== undeclared) return { name, declared: true };
  return { name: isUtf8(body) ? 'UTF-8' : 'windows-1252', declared: false };
}

/** Bytes to text in the encoding `htmlEncoding` decides on. */
export function decodeHtml(body: Uint8Array, contentType: string): string {
  return decodeBytes(body, htmlEncoding(body, contentType).name);
}

function isUtf8(body: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}
