import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

/** Random bytes drawn a pool at a time: one system call serves this many characters. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/** A byte from the system's CSPRNG as a fraction in [0, 1), as ulid's own generator makes one. */
function pooledRandom(): number {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/**
 * A new ULID. The library's default generator asks the CSPRNG once per character (16 calls, about
 * 36 us an id, a sixth of what billing adds to a cache hit); the same bytes drawn from a pool cost
 * about 1 us, as crypto.randomUUID's own pool does.
 */
export function newUlid(): string {
  return ulid(undefined, pooledRandom);
}
