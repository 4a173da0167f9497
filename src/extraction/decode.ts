import sniffHtmlEncoding from 'html-encoding-sniffer';
import { decode as decodeBytes, labelToName } from 'whatwg-encoding';

/**
 * Bytes to text the way a browser decides: byte-order mark, then the HTTP charset, then a
 * `<meta charset>` prescan. Pages that declare nothing are taken as UTF-8 when they are valid
 * UTF-8 (most of today's web), else as windows-1252, the HTML standard's fallback.
 */
export function decodeHtml(body: Uint8Array, contentType: string): string {
  const label = /charset\s*=\s*["']?([^;"'\s]+)/i.exec(contentType)?.[1];
  const transportLayerEncodingLabel = label && labelToName(label) ? label : undefined;
  const undeclared = 'x-undeclared';
  let encoding = sniffHtmlEncoding(body, { transportLayerEncodingLabel, defaultEncoding: undeclared });
  if (encoding === undeclared) encoding = isUtf8(body) ? 'UTF-8' : 'windows-1252';
  return decodeBytes(body, encoding);
}

function isUtf8(body: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}
