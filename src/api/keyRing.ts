import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/**
 * Secrets and what each one grants. A presented secret is compared as a SHA-256 digest in
 * constant time, against every entry, so neither timing nor early exit tells a caller how
 * close a guess was.
 */
export class KeyRing<T> {
  private readonly entries: { digest: Buffer; grant: T }[];

  constructor(secrets: Iterable<[string, T]>) {
    this.entries = [...secrets].map(([secret, grant]) => ({ digest: digest(secret), grant }));
  }

  /** What the secret grants, or undefined for an unknown or missing one. */
  find(presented: string | undefined): T | undefined {
    if (!presented) return undefined;
    const candidate = digest(presented);
    let grant: T | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, candidate)) grant = entry.grant;
    }
    return grant;
  }
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}
