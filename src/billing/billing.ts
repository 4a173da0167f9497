import type { Client } from '@temporalio/client';
import type { Counter } from 'prom-client';
import { newUlid } from '../ids';
import type { BillingSettings, PricedOperation } from '../config';
import { ServiceError } from '../errors';
import type { Logger } from '../telemetry/logger';
import { countsAfter, type Count, type RequestWindow } from '../limits/requestCounter';
import { KeyRing } from '../api/keyRing';
import { KeyedBatches } from './batches';
import { HitBlocks, isHitBlockKey } from './hitBlocks';
import { runSettlement } from './settlement';
import type { Store, Unsettled } from './store';

/**
 * What the API asks of billing: who a key belongs to, a charge before a run starts, and the
 * settlement (refund or not) once it has ended. With a store, every replica shares keys and
 * balances; without one (no DATABASE_URL) keys come from API_KEYS and nothing is charged.
 */
export interface Billing {
  /** The organization of a presented key, or undefined for an unknown, revoked or missing one. */
  organizationOf(key: string | undefined): Promise<string | undefined>;
  /**
   * Charges a run before it starts; 402 when the balance does not cover it. Returns the credits
   * charged, for the run's memo (undefined when billing is off).
   */
  chargeRun(
    organization: string,
    workflowId: string,
    priced: PricedOperation,
    timeoutMs: number,
  ): Promise<number | undefined>;
  /** Charges an answer from the cache, which starts no run. */
  chargeCacheHit(organization: string): Promise<void>;
  /**
   * Counts a cache hit's request in `window`, which is in the store, and charges the hit, in one
   * statement: its count, and whether it was paid (a hit past the limit is counted, not charged).
   * Only with a store, which is where such a window can be.
   */
  countAndChargeCacheHit?(organization: string, window: RequestWindow): Promise<CountedHit>;
  /** Settles a run's charge if the run has ended; later calls, anywhere, do nothing. */
  settle(workflowId: string): Promise<void>;
  /**
   * Settles, soon and without asking Temporal, the charge of a run the caller saw complete: it is
   * kept. The answer does not wait on it; a settlement lost with the process is done by a sweep.
   */
  completed(workflowId: string): void;
  close(): Promise<void>;
}

export interface CountedHit {
  count: Count;
  paid: boolean;
  price: number;
}

/** 402 for a request whose price its organization's balance does not cover. */
export const insufficientCredits = (organization: string, amount: number): ServiceError =>
  new ServiceError('insufficient_credits', `${organization} cannot pay ${amount} credits`);

export interface CreditCounters {
  charged: Counter<'operation'>;
  refunded: Counter<'operation'>;
}

/** Keys from API_KEYS, in memory; nothing charged. */
export function unbilled(keys: ReadonlyMap<string, string>): Billing {
  const ring = new KeyRing(keys);
  return {
    organizationOf: async (key) => ring.find(key),
    chargeRun: async () => undefined,
    chargeCacheHit: async () => undefined,
    settle: async () => undefined,
    completed: () => undefined,
    close: async () => undefined,
  };
}

/** A run's charge is looked at this long after it was made, at the earliest, by the sweep. */
const SETTLE_DELAY_MS = 1000;

/**
 * How long past its deadline a charge with no run waits before it is refunded: clocks differ.
 * Only for charges whose process is not known gone (below), or made by the run tools.
 */
const MISSING_RUN_GRACE_MS = 60_000;

/** How often an API process tells the store it is alive, while it may still start runs it charged. */
const ALIVE_INTERVAL_MS = 5000;

/**
 * A process silent this long is gone: its event loop has not run for four beats, so it is dead
 * (or frozen past any start it could still make: see docs/security.md, Credits).
 */
const GONE_AFTER_MS = 4 * ALIVE_INTERVAL_MS;

/**
 * A charge of a gone process with no run this long after it was made is refunded: the process
 * started its run, if at all, within milliseconds of the charge, and Temporal has had this long to
 * show it.
 */
const ABANDONED_AFTER_MS = 10_000;

/**
 * How long completed runs wait to be settled together: one statement for many runs, well before
 * the sweep (SETTLE_DELAY_MS) would look at them and ask Temporal.
 */
const COMPLETED_BATCH_MS = 50;

/** Completed runs settled by one statement at most; more are settled at once in another. */
const COMPLETED_BATCH_SIZE = 500;

/** Cache hits charged by one statement at most. */
const HIT_BATCH_SIZE = 500;

/** A hit whose request is counted by the statement that charges it: batched per organization and window. */
interface CountedHitCharge {
  organization: string;
  runKey: string;
  window: RequestWindow;
}

/** A hit's own ledger key: nothing can go wrong after a hit, so there is nothing to settle. */
const hitKey = (organization: string): string => `${organization}/cache-hit/${newUlid()}`;

/** Lookups a process remembers at most, so a flood of distinct keys cannot grow it without bound. */
const KEY_CACHE_ENTRIES = 10_000;

export class StoreBilling implements Billing {
  private readonly known = new Map<string, { organization: string; until: number }>();
  /** Lookups under way, one per key: as many as requests in flight at most. */
  private readonly lookups = new Map<string, Promise<string | undefined>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  /** This process, as its charges name it. */
  private readonly processId = `api-${newUlid().toLowerCase()}`;
  private sweeping = false;
  private completedRuns: string[] = [];
  private completedTimer: NodeJS.Timeout | undefined;
  /** Cache hits of an organization that arrive while its last charge of hits is out go in the next. */
  private readonly hitCharges = new KeyedBatches<string, boolean>(
    (organization, runKeys) => this.chargeHits(organization, runKeys),
    HIT_BATCH_SIZE,
  );

  /** The same, for hits whose requests are counted by the statement that charges them. */
  private readonly countedHits = new KeyedBatches<CountedHitCharge, CountedHit>(
    (_, hits) => this.countAndChargeHits(hits),
    HIT_BATCH_SIZE,
  );

  /** Hits of organizations that send them fast, paid and counted ahead a block at a time. */
  private readonly blocks: HitBlocks;

  constructor(
    private readonly store: Store,
    private readonly settings: BillingSettings,
    private readonly client: Client,
    private readonly counters: CreditCounters,
    private readonly logger: Logger,
  ) {
    this.blocks = new HitBlocks(store, this.processId, (err, what) =>
      this.logger.warn({ err }, `${what} failed; the sweep settles it`),
    );
    this.sweeper = setInterval(() => void this.sweep(), settings.settleIntervalMs);
    this.sweeper.unref();
    this.heartbeat = setInterval(() => void this.alive(), ALIVE_INTERVAL_MS);
    this.heartbeat.unref();
    void this.alive();
  }

  /** Remembered for KEY_CACHE_MS at most, so a revoked key is refused on every replica within it. */
  async organizationOf(key: string | undefined): Promise<string | undefined> {
    if (!key || key.length > 200) return undefined;
    const now = Date.now();
    const known = this.known.get(key);
    if (known && known.until > now) return known.organization;
    this.known.delete(key);
    // Requests that find the key's entry expired together share one lookup, not one statement each.
    let lookup = this.lookups.get(key);
    if (!lookup) {
      lookup = this.lookUp(key, now).finally(() => this.lookups.delete(key));
      this.lookups.set(key, lookup);
    }
    return lookup;
  }

  private async lookUp(key: string, now: number): Promise<string | undefined> {
    const found = await this.store.findKey(key);
    if (!found) return undefined;
    if (this.known.size >= KEY_CACHE_ENTRIES) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, { organization: found.organization, until: now + this.settings.keyCacheMs });
    return found.organization;
  }

  async chargeRun(
    organization: string,
    workflowId: string,
    priced: PricedOperation,
    timeoutMs: number,
  ): Promise<number> {
    const amount = this.settings.prices[priced];
    await this.charge({
      organization,
      runKey: workflowId,
      operation: priced,
      amount,
      expiresAt: new Date(Date.now() + timeoutMs),
      chargedBy: this.processId,
    });
    return amount;
  }

  async chargeCacheHit(organization: string): Promise<void> {
    const price = this.settings.cacheHitPrice;
    if (await this.blocks.take(organization, price)) return this.paidFromBlock(price);
    if (!(await this.hitCharges.add(organization, hitKey(organization))))
      throw insufficientCredits(organization, price);
  }

  async countAndChargeCacheHit(organization: string, window: RequestWindow): Promise<CountedHit> {
    const price = this.settings.cacheHitPrice;
    const fromBlock = await this.blocks.take(organization, price, window);
    if (fromBlock) {
      this.paidFromBlock(price);
      // A block taken for a window counted its hits' requests in it.
      return { count: fromBlock.count!, paid: true, price };
    }
    return this.countedHits.add(`${window.limit}:${window.key}`, {
      organization,
      runKey: hitKey(organization),
      window,
    });
  }

  /** Counted as each hit is answered; the block's own charge and refund are not counted again. */
  private paidFromBlock(price: number): void {
    this.counters.charged.inc({ operation: 'cache-hit' }, price);
  }

  /** The hits of one organization and window, in order: each one's count, and whether it was paid. */
  private async countAndChargeHits(hits: CountedHitCharge[]): Promise<CountedHit[]> {
    const { organization, window } = hits[0]!;
    const price = this.settings.cacheHitPrice;
    const runKeys = hits.map((hit) => hit.runKey);
    const { counted, resetsAt, paid } = await this.store.countAndChargeCacheHits(organization, price, runKeys, window);
    if (paid > 0) this.counters.charged.inc({ operation: 'cache-hit' }, paid * price);
    // The hits within the limit are the first ones, and those paid the first of them.
    return countsAfter(counted, window.limit, hits.length, Math.max(0, resetsAt - Date.now())).map((count, i) => ({
      count,
      paid: i < paid,
      price,
    }));
  }

  /** Whether each hit, in order, was paid. */
  private async chargeHits(organization: string, runKeys: string[]): Promise<boolean[]> {
    const price = this.settings.cacheHitPrice;
    const paid = await this.store.chargeCacheHits(organization, price, runKeys);
    if (paid > 0) this.counters.charged.inc({ operation: 'cache-hit' }, paid * price);
    return runKeys.map((_, i) => i < paid);
  }

  private async charge(charge: Parameters<Store['charge']>[0]): Promise<void> {
    const result = await this.store.charge(charge);
    if (result === 'insufficient') throw insufficientCredits(charge.organization, charge.amount);
    if (result === 'charged') this.counters.charged.inc({ operation: charge.operation }, charge.amount);
  }

  async settle(workflowId: string, charge?: Omit<Unsettled, 'runKey'>): Promise<void> {
    // The hits a dead process's block answered are then free.
    if (isHitBlockKey(workflowId))
      return this.refundOnceGone(workflowId, charge, 'refunded: the process holding this block of cache hits stopped');
    const run = await runSettlement(this.client, workflowId);
    if (run.state === 'running') return this.store.checked(workflowId);
    if (run.state === 'missing') return this.refundOnceGone(workflowId, charge, 'refunded: the run never started');
    await this.record(workflowId, run.refund, run.note);
  }

  /**
   * A charge with no run behind it (a run that never started, a block of cache hits its process
   * never gave back): refunded whole once its process is gone or it is past its deadline and the
   * grace for clocks, else left to its process.
   */
  private async refundOnceGone(
    runKey: string,
    charge: Omit<Unsettled, 'runKey'> | undefined,
    note: string,
  ): Promise<void> {
    const expired = charge && Date.now() >= charge.expiresAt.getTime() + MISSING_RUN_GRACE_MS;
    if (!expired && !charge?.abandoned) return this.store.checked(runKey);
    await this.record(runKey, true, note);
  }

  completed(workflowId: string): void {
    this.completedRuns.push(workflowId);
    if (this.completedRuns.length >= COMPLETED_BATCH_SIZE) void this.settleCompleted();
    else this.completedTimer ??= setTimeout(() => void this.settleCompleted(), COMPLETED_BATCH_MS);
  }

  private async settleCompleted(): Promise<void> {
    clearTimeout(this.completedTimer);
    this.completedTimer = undefined;
    const runKeys = this.completedRuns;
    this.completedRuns = [];
    if (runKeys.length === 0) return;
    try {
      await this.store.settleKept(runKeys);
    } catch (err) {
      this.logger.warn({ err, runs: runKeys.length }, 'settling completed runs failed; the sweep will');
    }
  }

  private async record(workflowId: string, refund: boolean, note: string): Promise<void> {
    const settled = await this.store.settle(workflowId, refund, note);
    if (settled && settled.refunded > 0) {
      this.counters.refunded.inc({ operation: settled.operation }, settled.refunded);
      this.logger.info({ workflowId, credits: settled.refunded, note }, 'credits refunded');
    }
  }

  /**
   * Settles the charges of runs that ended: streamed runs, and those whose API process went away
   * before their end. Every replica sweeps; the store settles each charge once.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const due = await this.store.unsettled(new Date(Date.now() - SETTLE_DELAY_MS), {
        abandonedAfterMs: ABANDONED_AFTER_MS,
        goneAfterMs: GONE_AFTER_MS,
      });
      for (const { runKey, ...charge } of due) await this.settle(runKey, charge);
    } catch (err) {
      this.logger.warn({ err }, 'settling charges failed; trying again later');
    } finally {
      this.sweeping = false;
    }
  }

  private async alive(): Promise<void> {
    try {
      // Rows of processes gone a day are dropped: a charge of theirs is abandoned either way.
      await this.store.alive(this.processId, 86_400_000);
    } catch (err) {
      this.logger.warn({ err }, 'telling the store this process is alive failed; trying again');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.heartbeat);
    await this.blocks.close();
    await this.settleCompleted();
    await this.store.close();
  }
}
