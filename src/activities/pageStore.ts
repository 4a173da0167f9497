import { randomUUID } from 'node:crypto';

/**
 * Fetched page bodies, held in the memory of the worker process that fetched them until the
 * activities that read them (on this process's own task queue) are done. Bounded by age and
 * total size; a page evicted early is fetched again by the workflow, so the bound is safe.
 */

export interface StoredPage {
  body: Buffer;
  contentType: string;
  finalUrl: string;
  truncated: boolean;
}

interface Entry {
  page: StoredPage;
  storedAt: number;
}

export class PageStore {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
  ) {}

  put(page: StoredPage): string {
    const id = randomUUID();
    this.entries.set(id, { page, storedAt: Date.now() });
    this.totalBytes += page.body.byteLength;
    this.evict();
    return id;
  }

  get(id: string): StoredPage | undefined {
    const entry = this.entries.get(id);
    if (!entry || Date.now() - entry.storedAt > this.ttlMs) return undefined;
    return entry.page;
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.totalBytes -= entry.page.body.byteLength;
  }

  private evict(): void {
    const now = Date.now();
    // Map iteration is insertion order, so the oldest entries come first.
    for (const [id, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes && now - entry.storedAt <= this.ttlMs) break;
      this.delete(id);
    }
  }
}
