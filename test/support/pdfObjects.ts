/**
 * A PDF file written object by object, for what pdfkit cannot make (outlines, form XObjects,
 * hostile documents): `objects[i]` is the body of object i + 1, and object 1 is the catalog.
 * The cross-reference table holds each object's byte offset, so bodies must be latin1 text.
 */
export function pdfOfObjects(objects: readonly string[]): Buffer {
  const parts = ['%PDF-1.7\n'];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = `${i + 1} 0 obj\n${body}\nendobj\n`;
    parts.push(object);
    length += object.length;
  });
  const count = offsets.length + 1;
  parts.push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (const offset of offsets) parts.push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  parts.push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}
