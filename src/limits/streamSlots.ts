import type { LimitBackend, RedisClient } from './backend';

/**
 * Slots of an organization's research and automate runs in flight, shared by every API replica.
 * A slot is a lease: its holder renews it while the run goes on and gives it back when the run
 * ends, and one whose holder died runs out by itself, so no slot is lost for good.
 */
export interface StreamSlots {
  /** Takes a slot for `leaseMs` if the organization holds fewer than `limit`; false when it holds them all. */
  take(organization: string, slot: string, limit: number, leaseMs: number): Promise<boolean>;
  renew(organization: string, slot: string, leaseMs: number): Promise<void>;
  release(organization: string, slot: string): Promise<void>;
}

/**
 * The slots of `backend`. While a shared store is out of reach (Redis down, or not yet connected
 * in a process just started; the store's PostgreSQL away), each process takes slots of its own,
 * as it counts requests on its own then (requestCounter.ts): the limit loosens to each replica's,
 * rather than every research and automate run failing. `onOutage` hears of each such take.
 */
export function streamSlots(backend: LimitBackend, onOutage: (err: unknown) => void = () => undefined): StreamSlots {
  const shared = sharedSlots(backend);
  return shared ? new InsuredSlots(shared, onOutage) : new MemorySlots();
}

function sharedSlots(backend: LimitBackend): StreamSlots | undefined {
  switch (backend.kind) {
    case 'redis':
      return new RedisSlots(backend.client);
    case 'postgres':
      return {
        take: async (organization, slot, limit, leaseMs) => {
          const { rows } = await backend.pool.query<{ taken: boolean }>(
            'SELECT take_stream_slot($1, $2, $3, $4) AS taken',
            [organization, slot, limit, leaseMs],
          );
          return rows[0]?.taken === true;
        },
        renew: async (organization, slot, leaseMs) => {
          await backend.pool.query(
            `UPDATE stream_slots SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
             WHERE id = $2 AND organization = $1`,
            [organization, slot, leaseMs],
          );
        },
        release: async (organization, slot) => {
          await backend.pool.query('DELETE FROM stream_slots WHERE id = $2 AND organization = $1', [
            organization,
            slot,
          ]);
        },
      };
    case 'memory':
      return undefined;
  }
}

/** Shared slots, and this process's own for a take the shared store could not answer. */
class InsuredSlots implements StreamSlots {
  private readonly local = new MemorySlots();
  /** Slots taken here while the store was away: renewed and released here too. */
  private readonly localIds = new Set<string>();

  constructor(
    private readonly shared: StreamSlots,
    private readonly onOutage: (err: unknown) => void,
  ) {}

  async take(organization: string, slot: string, limit: number, leaseMs: number): Promise<boolean> {
    try {
      return await this.shared.take(organization, slot, limit, leaseMs);
    } catch (err) {
      this.onOutage(err);
      const taken = await this.local.take(organization, slot, limit, leaseMs);
      if (taken) this.localIds.add(slot);
      return taken;
    }
  }

  renew(organization: string, slot: string, leaseMs: number): Promise<void> {
    return this.localIds.has(slot)
      ? this.local.renew(organization, slot, leaseMs)
      : this.shared.renew(organization, slot, leaseMs);
  }

  release(organization: string, slot: string): Promise<void> {
    return this.localIds.delete(slot)
      ? this.local.release(organization, slot)
      : this.shared.release(organization, slot);
  }
}

/** Each organization's slots are a sorted set scored by their lease's end, in Redis's own clock. */
const TAKE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

const RENEW = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', ms + tonumber(ARGV[2]), ARGV[1]) == 1 then
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
end
return 0`;

class RedisSlots implements StreamSlots {
  constructor(private readonly client: RedisClient) {}

  private readonly key = (organization: string): string => `webloom:streams:${organization}`;

  async take(organization: string, slot: string, limit: number, leaseMs: number): Promise<boolean> {
    const taken = await this.client.eval(TAKE, {
      keys: [this.key(organization)],
      arguments: [slot, String(limit), String(leaseMs)],
    });
    return taken === 1;
  }

  async renew(organization: string, slot: string, leaseMs: number): Promise<void> {
    await this.client.eval(RENEW, { keys: [this.key(organization)], arguments: [slot, String(leaseMs)] });
  }

  async release(organization: string, slot: string): Promise<void> {
    await this.client.zRem(this.key(organization), slot);
  }
}

/** One process's slots, when there is no shared store (and so one API process). */
class MemorySlots implements StreamSlots {
  private readonly held = new Map<string, Map<string, number>>();

  async take(organization: string, slot: string, limit: number, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    const slots = this.held.get(organization) ?? new Map<string, number>();
    for (const [id, until] of slots) if (until <= now) slots.delete(id);
    if (slots.size >= limit) return false;
    slots.set(slot, now + leaseMs);
    this.held.set(organization, slots);
    return true;
  }

  async renew(organization: string, slot: string, leaseMs: number): Promise<void> {
    const slots = this.held.get(organization);
    if (slots?.has(slot)) slots.set(slot, Date.now() + leaseMs);
  }

  async release(organization: string, slot: string): Promise<void> {
    const slots = this.held.get(organization);
    slots?.delete(slot);
    if (slots?.size === 0) this.held.delete(organization);
  }
}
