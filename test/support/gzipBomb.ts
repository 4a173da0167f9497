import { gzipSync } from 'node:zlib';

export const MiB = 1024 * 1024;

/** `count` gzip members of `memberBytes` zeros each, in one stream (gunzip reads every member). */
export function gzippedZeros(memberBytes: number, count: number): Buffer {
  const member = gzipSync(Buffer.alloc(memberBytes), { level: 9 });
  return Buffer.concat(Array.from({ length: count }, () => member));
}
