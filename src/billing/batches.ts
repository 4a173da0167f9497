interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Group commit for statements made per key (an organization, a counter): the first item goes at
 * once, so a lone request waits for nothing; items that arrive while a statement for their key is
 * out wait for it and then go together in the next one. Under concurrency each round trip to the
 * store serves every request that came meanwhile, where one statement each would queue behind
 * one another at the store (the embedded one runs one at a time) and each wait for its own commit.
 */
export class KeyedBatches<T, R> {
  private readonly queues = new Map<string, Waiting<T, R>[]>();

  /**
   * `send` answers one result per item, in their order; a failure fails every item of the batch.
   * `maxBatch` bounds one statement's size; the rest go in the next.
   */
  constructor(
    private readonly send: (key: string, items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      const fresh = [{ item, resolve, reject }];
      this.queues.set(key, fresh);
      void this.drain(key, fresh);
    });
  }

  private async drain(key: string, queue: Waiting<T, R>[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, this.maxBatch);
      try {
        const results = await this.send(
          key,
          batch.map((waiting) => waiting.item),
        );
        batch.forEach((waiting, i) => waiting.resolve(results[i]!));
      } catch (err) {
        for (const waiting of batch) waiting.reject(err);
      }
    }
    // In the same turn as the loop's last check, so no item can arrive between them and be left.
    this.queues.delete(key);
  }
}
