import { HitBlocks, isHitBlockKey } from '../../src/billing/hitBlocks';
import type { HitReservation } from '../../src/billing/store';

/** The rules of migrations/billing/0008 over one organization's balance and one window, in memory. */
class BlockLedger {
  counted = 0;
  reservations: HitReservation[] = [];
  released: { key: string; usedCredits: number; unusedRequests: number }[] = [];
  private readonly charged = new Map<string, number>();
  fail = false;

  constructor(
    public balance: number,
    private readonly windowEnds = Date.now() + 60_000,
  ) {}

  async reserveCacheHits(reservation: HitReservation) {
    if (this.fail) throw new Error('store away');
    this.reservations.push(reservation);
    let granted = reservation.wanted;
    if (reservation.window) granted = Math.min(granted, Math.floor((reservation.window.limit - this.counted) / 8));
    granted = Math.max(0, Math.min(granted, Math.floor(this.balance / reservation.price / 8)));
    if (granted < reservation.fewest) granted = 0;
    if (granted > 0) {
      this.balance -= granted * reservation.price;
      this.charged.set(reservation.blockKey, granted * reservation.price);
      if (reservation.window) this.counted += granted;
    }
    return { granted, counted: this.counted, resetsAt: this.windowEnds };
  }

  async releaseCacheHits(key: string, usedCredits: number, unusedRequests: number) {
    this.released.push({ key, usedCredits, unusedRequests });
    const charged = this.charged.get(key) ?? 0;
    this.charged.delete(key);
    this.balance += charged - usedCredits;
    this.counted -= unusedRequests;
    return charged - usedCredits;
  }
}

const WINDOW = { key: 'requests:org', limit: 100_000, windowMs: 60_000 };

describe('blocks of cache hits', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const errors: unknown[] = [];
  const blocksOn = (ledger: BlockLedger) => new HitBlocks(ledger, 'api-test', (err) => errors.push(err));

  it('leaves an organization sending few hits to be charged one by one', async () => {
    const ledger = new BlockLedger(1_000_000);
    const blocks = blocksOn(ledger);
    // 50 a second: 12 or 13 in each quarter of a second, under the 16 that make it hot.
    for (let i = 0; i < 60; i++) {
      expect(await blocks.take('org', 1, WINDOW)).toBeUndefined();
      jest.advanceTimersByTime(20);
    }
    expect(ledger.reservations).toHaveLength(0);
    await blocks.close();
  });

  it('answers a hot organization from blocks, counts each hit in its place, and gives back what is left', async () => {
    const ledger = new BlockLedger(1_000_000);
    const blocks = blocksOn(ledger);
    const answers = [];
    for (let i = 0; i < 500; i++) answers.push(await blocks.take('org', 2, WINDOW));
    const fromBlocks = answers.filter((answer) => answer !== undefined);
    // The first 15 hits are what makes it hot (16 in a quarter of a second); every later one is answered from a block.
    expect(fromBlocks).toHaveLength(500 - 15);
    expect(ledger.reservations.length).toBeLessThan(20);
    expect(ledger.reservations.every((reservation) => isHitBlockKey(reservation.blockKey))).toBe(true);
    // Each hit told what is left of the window after it, one fewer each time within a block.
    const remaining = fromBlocks.map((answer) => answer!.count!.remaining);
    expect(remaining.every((left, i) => i === 0 || left < remaining[i - 1]!)).toBe(true);
    jest.advanceTimersByTime(1500);
    await blocks.close();
    // Paid for exactly the hits answered, counted exactly them.
    expect(ledger.balance).toBe(1_000_000 - 2 * fromBlocks.length);
    expect(ledger.counted).toBe(fromBlocks.length);
    expect(ledger.released).toHaveLength(ledger.reservations.length);
  });

  it('gives an idle block back within a second and a half of its last hit', async () => {
    const ledger = new BlockLedger(1_000_000);
    const blocks = blocksOn(ledger);
    for (let i = 0; i < 22; i++) await blocks.take('org', 1, WINDOW);
    expect(ledger.reservations).toHaveLength(1);
    expect(ledger.released).toHaveLength(0);
    jest.advanceTimersByTime(1500);
    await Promise.resolve();
    expect(ledger.released).toEqual([
      { key: ledger.reservations[0]!.blockKey, usedCredits: 7, unusedRequests: ledger.reservations[0]!.wanted - 7 },
    ]);
    // 15 hits went one by one (not this ledger's to charge), 7 from the block.
    expect(ledger.balance).toBe(1_000_000 - 7);
    await blocks.close();
  });

  it('charges one by one, without asking for a block each time, when the balance is nearly spent', async () => {
    // An eighth of a balance of 100 hits is 12: less than a block worth holding.
    const ledger = new BlockLedger(100);
    const blocks = blocksOn(ledger);
    for (let i = 0; i < 200; i++) expect(await blocks.take('org', 1, WINDOW)).toBeUndefined();
    // Asked once, refused, and not again for the second that follows.
    expect(ledger.reservations).toHaveLength(1);
    jest.advanceTimersByTime(1000);
    for (let i = 0; i < 16; i++) await blocks.take('org', 1, WINDOW);
    expect(ledger.reservations).toHaveLength(2);
    await blocks.close();
    expect(ledger.balance).toBe(100);
  });

  it('never pays from a block at another price, nor past the end of its window', async () => {
    const ledger = new BlockLedger(1_000_000, Date.now() + 5000);
    const blocks = blocksOn(ledger);
    for (let i = 0; i < 22; i++) await blocks.take('org', 1, WINDOW);
    const [first] = ledger.reservations;
    expect(await blocks.take('org', 3, WINDOW)).toMatchObject({ price: 3 });
    expect(ledger.reservations).toHaveLength(2);
    jest.advanceTimersByTime(6000);
    await blocks.take('org', 3, WINDOW);
    expect(ledger.released.map((released) => released.key)).toContain(first!.blockKey);
    await blocks.close();
  });

  it('goes one by one for a while when the store fails', async () => {
    const ledger = new BlockLedger(1_000_000);
    ledger.fail = true;
    const blocks = blocksOn(ledger);
    for (let i = 0; i < 200; i++) expect(await blocks.take('org', 1, WINDOW)).toBeUndefined();
    expect(errors).toHaveLength(1);
    await blocks.close();
  });
});
