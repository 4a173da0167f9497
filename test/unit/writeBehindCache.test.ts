import type { CachedPage, ResultCache } from '../../src/cache/resultCache';
import { WriteBehindCache } from '../../src/cache/writeBehindCache';

/** A store whose writes land only when the test lets them. */
function heldStore(): { store: ResultCache; land(err?: Error): void; stored: Map<string, CachedPage> } {
  const stored = new Map<string, CachedPage>();
  let release: (err?: Error) => void = () => undefined;
  return {
    stored,
    store: {
      get: async (key) => stored.get(key),
      set: (key, page) =>
        new Promise<void>((resolve, reject) => {
          release = (err) => {
            if (err) return reject(err);
            stored.set(key, page);
            resolve();
          };
        }),
    },
    land: (err) => release(err),
  };
}

const page: CachedPage = { markdown: '# A', metadata: {}, storedAt: 1 };
const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
};

describe('WriteBehindCache', () => {
  it('answers a write at once, and a read of that key waits for it', async () => {
    const held = heldStore();
    const cache = new WriteBehindCache(held.store, () => undefined);
    expect(await settled(cache.set('k', page))).toBe(true);
    const read = cache.get('k');
    expect(await settled(read)).toBe(false);
    held.land();
    expect(await read).toEqual(page);
  });

  it('with behind false, answers a write once the store has it, so another reader of the store sees it', async () => {
    const held = heldStore();
    const cache = new WriteBehindCache(held.store, () => undefined, false);
    const write = cache.set('k', page);
    expect(await settled(write)).toBe(false);
    held.land();
    await write;
    expect(held.stored.get('k')).toEqual(page);
  });

  it('reports a failed write and does not throw it, either way', async () => {
    for (const behind of [true, false]) {
      const held = heldStore();
      const errors: unknown[] = [];
      const cache = new WriteBehindCache(held.store, (err) => errors.push(err), behind);
      const write = cache.set('k', page);
      held.land(new Error('down'));
      await expect(write).resolves.toBeUndefined();
      await expect(cache.get('k')).resolves.toBeUndefined();
      expect(errors).toEqual([new Error('down')]);
    }
  });
});
