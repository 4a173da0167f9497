import { parseWorkflowId, workflowIdOf } from '../events/streams';
import { newUlid } from '../ids';
import type { Count, RequestWindow } from '../limits/requestCounter';
import type { HitReservation, Store } from './store';

/** What a hit answered from a block is told: it is paid, and its request's count. */
export interface BlockHit {
  /** Undefined when the hits' requests are not counted in the store (Redis counts them). */
  count?: Count;
  price: number;
}

/** A second's worth of an organization's hits through this process past which it gets blocks. */
const HOT_HITS_PER_SECOND = 64;

/**
 * The rate is counted in spans this long, so a burst gets blocks after a quarter of a second's
 * worth of hits (16), not a second's.
 */
const RATE_SPAN_MS = 250;
const HOT_HITS_PER_SPAN = (HOT_HITS_PER_SECOND * RATE_SPAN_MS) / 1000;

/**
 * A block is as many hits as the organization sent in this long, within the bounds below; fewer
 * than MIN_BLOCK are not worth holding (the store grants none).
 */
const BLOCK_SPAN_MS = 500;
const MIN_BLOCK = 16;
const MAX_BLOCK = 1024;

/** A block untouched this long is given back; none is kept longer than MAX_BLOCK_AGE_MS. */
const IDLE_MS = 1000;
const MAX_BLOCK_AGE_MS = 10_000;

/** After a block was refused (balance or limit nearly spent), hits go one by one this long. */
const REFUSED_BACKOFF_MS = 1000;

/**
 * Past its deadline and MISSING_RUN_GRACE_MS the sweep refunds a block never released; a live
 * process releases it within MAX_BLOCK_AGE_MS.
 */
const BLOCK_EXPIRES_MS = 60_000;

/** How often held blocks are looked at for release. */
const REAP_INTERVAL_MS = 250;

/** A block's ledger key has a run id's form, with this for its operation: the sweep tells them apart. */
const HIT_BLOCK = 'cache-hit-block';

const blockKeyOf = (organization: string): string => workflowIdOf(organization, HIT_BLOCK, newUlid());

export const isHitBlockKey = (runKey: string): boolean => parseWorkflowId(runKey)?.operation === HIT_BLOCK;

interface Block {
  key: string;
  organization: string;
  price: number;
  granted: number;
  used: number;
  createdAt: number;
  lastUsedAt: number;
  /** The window its requests were counted in: its count after the block, and its end. */
  window?: { key: string; limit: number; counted: number; ends: number };
}

/** A block asked for: of how many hits, at what price, counted where. */
interface Wanted {
  organization: string;
  price: number;
  wanted: number;
  window: RequestWindow | undefined;
}

interface Rate {
  /** Start of the current span (RATE_SPAN_MS), and the hits in it and in the one before. */
  since: number;
  hits: number;
  previous: number;
  /** No block asked for until then: the last one was refused. */
  refusedUntil: number;
}

type BlockStore = Pick<Store, 'reserveCacheHits' | 'releaseCacheHits'>;

/**
 * Cache hits answered from blocks paid ahead. A hit is under 2 ms of work, and the statement that
 * charged and counted each one cost hits a fifth of their throughput at 16 at once on the embedded
 * store (bench:billing). An organization sending more than
 * HOT_HITS_PER_SECOND hits through this process is sold them a block at a time instead, with its
 * requests counted ahead in the same statement; hits below that rate, and any whose block the
 * balance or the limit cannot grant, are charged and counted one by one as before. What a block
 * leaves unused is given back within IDLE_MS of its last hit, or when this process stops; the
 * sweep refunds all of a block whose process died.
 */
export class HitBlocks {
  private readonly held = new Map<string, Block>();
  private readonly reserving = new Map<string, Promise<Block | undefined>>();
  private readonly rates = new Map<string, Rate>();
  private readonly releasing = new Set<Promise<void>>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly store: BlockStore,
    private readonly processId: string,
    private readonly onError: (err: unknown, what: string) => void,
  ) {
    this.reaper = setInterval(() => this.reap(), REAP_INTERVAL_MS);
    this.reaper.unref();
  }

  /**
   * A hit of `organization` at `price`, paid from a block, with its request counted in `window`
   * when there is one; undefined when it is to be charged and counted on its own.
   */
  async take(organization: string, price: number, window?: RequestWindow): Promise<BlockHit | undefined> {
    const id = window ? `${window.limit}:${window.key}` : organization;
    const wanted = this.noteHit(id);
    const held = this.held.get(id);
    if (held && this.usable(held, price)) return this.use(held);
    if (wanted === 0) return undefined;
    const block = await this.reserve(id, { organization, price, wanted, window });
    // Others waiting on the same reservation may have used it up.
    return block && this.usable(block, price) ? this.use(block) : undefined;
  }

  /** Gives back what every block holds; for a process on its way out. */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.all(this.reserving.values());
    for (const id of [...this.held.keys()]) this.release(id);
    await Promise.all(this.releasing);
  }

  /** Counts the hit; how many hits a block would be if this organization is hot, else 0. */
  private noteHit(id: string): number {
    const now = Date.now();
    let rate = this.rates.get(id);
    if (!rate) {
      rate = { since: now, hits: 0, previous: 0, refusedUntil: 0 };
      this.rates.set(id, rate);
    }
    if (now - rate.since >= RATE_SPAN_MS) {
      rate.previous = now - rate.since < 2 * RATE_SPAN_MS ? rate.hits : 0;
      rate.since = now;
      rate.hits = 0;
    }
    rate.hits++;
    const perSpan = Math.max(rate.previous, rate.hits);
    if (perSpan < HOT_HITS_PER_SPAN || now < rate.refusedUntil) return 0;
    return Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, Math.ceil((perSpan * BLOCK_SPAN_MS) / RATE_SPAN_MS)));
  }

  private usable(block: Block, price: number): boolean {
    const now = Date.now();
    return (
      block.used < block.granted &&
      block.price === price &&
      now - block.createdAt < MAX_BLOCK_AGE_MS &&
      (!block.window || now < block.window.ends)
    );
  }

  private use(block: Block): BlockHit {
    block.used++;
    block.lastUsedAt = Date.now();
    const { window } = block;
    if (!window) return { price: block.price };
    // Its place among the requests the window counted: those before the block's, then its own.
    const place = window.counted - block.granted + block.used;
    return {
      price: block.price,
      count: {
        allowed: true,
        limit: window.limit,
        remaining: Math.max(0, window.limit - place),
        resetMs: Math.max(0, window.ends - block.lastUsedAt),
      },
    };
  }

  /** One reservation at a time per organization and window: hits arriving meanwhile share it. */
  private reserve(id: string, wanted: Wanted): Promise<Block | undefined> {
    let reservation = this.reserving.get(id);
    if (!reservation) {
      if (this.held.has(id)) this.release(id);
      reservation = this.reserveNew(id, wanted).finally(() => this.reserving.delete(id));
      this.reserving.set(id, reservation);
    }
    return reservation;
  }

  private async reserveNew(id: string, { organization, price, wanted, window }: Wanted): Promise<Block | undefined> {
    const key = blockKeyOf(organization);
    const request: HitReservation = {
      organization,
      price,
      wanted,
      fewest: MIN_BLOCK,
      blockKey: key,
      chargedBy: this.processId,
      expiresAt: new Date(Date.now() + BLOCK_EXPIRES_MS),
      window,
    };
    let reserved: Awaited<ReturnType<BlockStore['reserveCacheHits']>>;
    try {
      reserved = await this.store.reserveCacheHits(request);
    } catch (err) {
      this.onError(err, 'reserving a block of cache hits');
      this.refused(id);
      return undefined;
    }
    if (reserved.granted === 0) {
      this.refused(id);
      return undefined;
    }
    const now = Date.now();
    const block: Block = {
      key,
      organization,
      price,
      granted: reserved.granted,
      used: 0,
      createdAt: now,
      lastUsedAt: now,
      window: window && { key: window.key, limit: window.limit, counted: reserved.counted, ends: reserved.resetsAt },
    };
    this.held.set(id, block);
    return block;
  }

  private refused(id: string): void {
    const rate = this.rates.get(id);
    if (rate) rate.refusedUntil = Date.now() + REFUSED_BACKOFF_MS;
  }

  /** Gives back the blocks idle, used up, too old or of a window that ended; forgets rates gone cold. */
  private reap(): void {
    const now = Date.now();
    for (const [id, block] of this.held)
      if (now - block.lastUsedAt >= IDLE_MS || !this.usable(block, block.price)) this.release(id);
    for (const [id, rate] of this.rates)
      if (now - rate.since >= 2 * RATE_SPAN_MS && !this.held.has(id)) this.rates.delete(id);
  }

  private release(id: string): void {
    const block = this.held.get(id);
    if (!block) return;
    this.held.delete(id);
    const unusedRequests = block.granted - block.used;
    const releasing = this.store
      .releaseCacheHits(
        block.key,
        block.used * block.price,
        unusedRequests,
        block.window && { key: block.window.key, ends: block.window.ends },
      )
      .then(
        () => undefined,
        // The sweep refunds all of it once it is past its deadline: in the caller's favour.
        (err: unknown) => this.onError(err, 'giving back the unused hits of a block'),
      )
      .finally(() => this.releasing.delete(releasing));
    this.releasing.add(releasing);
  }
}
