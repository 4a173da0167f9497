export function isPdfType(contentType: string): boolean {
  return /^application\/(x-)?pdf\b/i.test(contentType);
}

/** By content type, or by the `%PDF-` magic bytes, which servers labelling PDFs as octet streams still send. */
export function isPdf(body: Uint8Array, contentType: string): boolean {
  if (isPdfType(contentType)) return true;
  return Buffer.from(body.subarray(0, 5)).toString('latin1') === '%PDF-';
}
