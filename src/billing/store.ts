import { escapeLiteral, Pool } from 'pg';
import { keyHash, keyHint, newKey } from './apiKeys';
import { STORE_STATEMENT_TIMEOUT_MS } from '../config/timeouts';
import { migrate } from './migrate';

/**
 * Organizations, API keys, balances and the ledger, in PostgreSQL: a server of its own
 * (DATABASE_URL) or the embedded one `npm start` runs (src/billing/embeddedStore.ts), reached the
 * same way with the same SQL. Every change of a balance is one statement, so concurrent requests on
 * any number of API replicas can neither overdraw a balance nor charge a run twice.
 */

export interface Organization {
  name: string;
  balance: number;
  requestsPerMinute: number | null;
  concurrentStreams: number | null;
  createdAt: string;
}

export interface KeyInfo {
  id: string;
  organization: string;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface LedgerEntry {
  id: number;
  kind: 'grant' | 'charge' | 'refund';
  amount: number;
  operation: string | null;
  runKey: string | null;
  note: string | null;
  createdAt: string;
}

export type ChargeResult = 'charged' | 'insufficient' | 'already_charged';

export interface Charge {
  organization: string;
  /** At most one charge per key (the run's workflow id): the database refuses a second. */
  runKey: string;
  operation: string;
  amount: number;
  /** Past this, a run that never started is refunded. */
  expiresAt: Date;
  /** Settled at once: nothing can go wrong after it (a free retry). */
  settled?: boolean;
  /** The process that charged, which starts the run (see `alive`); none for the run tools. */
  chargedBy?: string;
}

/** A block of cache hits asked for (Store.reserveCacheHits). */
export interface HitReservation {
  organization: string;
  price: number;
  wanted: number;
  /** A block smaller than this is not worth holding: none is made. */
  fewest: number;
  blockKey: string;
  /** The process holding the block: the sweep refunds it once that process is gone. */
  chargedBy: string;
  /** Past it (and a grace), the sweep refunds a block never released. */
  expiresAt: Date;
  /** Where the hits' requests are counted, when that is the store. */
  window?: { key: string; limit: number; windowMs: number };
}

/** A charge the sweep looks at. */
export interface Unsettled {
  runKey: string;
  expiresAt: Date;
  /** Made a while ago by a process that has stopped saying it is alive: it will not start the run. */
  abandoned: boolean;
}

/** A run's charge as the ledger holds it. */
export interface RunCharge {
  organization: string;
  operation: string;
  amount: number;
  settled: boolean;
  refunded: boolean;
}

/** A charge that was settled now, and the credits it gave back (0: none). */
export interface Settled {
  organization: string;
  operation: string;
  refunded: number;
}

export class StoreError extends Error {
  constructor(
    message: string,
    readonly reason: 'unknown_organization' | 'organization_exists' | 'unknown_key' | 'invalid',
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const CHECK_VIOLATION = '23514';

const pgCode = (err: unknown): string | undefined => (err as { code?: string }).code;

/** A number as an SQL literal, which only a whole one can be here. */
function wholeNumber(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not a whole number: ${value}`);
  return String(value);
}

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : value);

/** Names of organizations: what API_KEYS and workflow ids accept. */
const ORGANIZATION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function checkOrganizationName(name: string): void {
  if (!ORGANIZATION_NAME.test(name))
    throw new StoreError(
      `organization names are 1 to 100 letters, digits, dots, dashes or underscores, starting with a letter or digit: "${name.slice(0, 120)}"`,
      'invalid',
    );
}

export class Store {
  private constructor(readonly pool: Pool) {}

  /** Connects and brings the schema up to date. */
  static async open(databaseUrl: string, maxConnections = 10): Promise<Store> {
    // Without the statements' time limit: a process starting beside another waits for its migrations.
    const migrations = new Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 10_000 });
    migrations.on('error', () => undefined);
    try {
      await migrate(migrations);
    } finally {
      await migrations.end();
    }
    const pool = new Pool({
      connectionString: databaseUrl,
      max: maxConnections,
      connectionTimeoutMillis: STORE_STATEMENT_TIMEOUT_MS,
      // Client-side: a store that hangs (a stopped process, a lost network) answers nothing, not even a
      // server-side timeout. The connection of a statement that timed out is dropped, not reused.
      query_timeout: STORE_STATEMENT_TIMEOUT_MS,
    });
    // A connection the server dropped is replaced at the next query; without a listener it would end the process.
    pool.on('error', () => undefined);
    return new Store(pool);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /**
   * Creates each organization of API_KEYS that is missing, with `openingCredits`, and each key
   * that is missing. A key revoked before stays revoked, and an organization that exists keeps
   * its balance, so a restart grants nothing twice.
   */
  async bootstrap(keys: ReadonlyMap<string, string>, openingCredits: number): Promise<void> {
    for (const [key, organization] of keys) {
      checkOrganizationName(organization);
      await this.pool.query(
        `WITH created AS (
           INSERT INTO organizations (name, balance) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name
         )
         INSERT INTO ledger (organization, kind, amount, note)
         SELECT name, 'grant', $2, 'opening balance (API_KEYS)' FROM created`,
        [organization, openingCredits],
      );
      const { id } = newKey();
      await this.pool.query(
        `INSERT INTO api_keys (id, organization, key_hash, hint) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key_hash) DO NOTHING`,
        [id, organization, keyHash(key), keyHint(key)],
      );
    }
  }

  /** The organization and key id of a key that exists and is not revoked. */
  async findKey(key: string): Promise<{ organization: string; keyId: string } | undefined> {
    const { rows } = await this.pool.query<{ id: string; organization: string }>(
      'SELECT id, organization FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [keyHash(key)],
    );
    const row = rows[0];
    return row && { organization: row.organization, keyId: row.id };
  }

  async createOrganization(name: string): Promise<Organization> {
    checkOrganizationName(name);
    try {
      const { rows } = await this.pool.query('INSERT INTO organizations (name) VALUES ($1) RETURNING *', [name]);
      return toOrganization(rows[0]);
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION)
        throw new StoreError(`organization ${name} exists already`, 'organization_exists');
      throw err;
    }
  }

  async organizations(): Promise<Organization[]> {
    const { rows } = await this.pool.query('SELECT * FROM organizations ORDER BY name');
    return rows.map(toOrganization);
  }

  async organization(name: string): Promise<Organization> {
    const { rows } = await this.pool.query('SELECT * FROM organizations WHERE name = $1', [name]);
    if (!rows[0]) throw new StoreError(`no organization ${name}`, 'unknown_organization');
    return toOrganization(rows[0]);
  }

  /** A new key for the organization; the key itself is in the answer and nowhere else. */
  async createKey(organization: string): Promise<{ id: string; key: string; organization: string }> {
    const created = newKey();
    try {
      await this.pool.query('INSERT INTO api_keys (id, organization, key_hash, hint) VALUES ($1, $2, $3, $4)', [
        created.id,
        organization,
        created.hash,
        created.hint,
      ]);
    } catch (err) {
      if (pgCode(err) === FOREIGN_KEY_VIOLATION)
        throw new StoreError(`no organization ${organization}`, 'unknown_organization');
      throw err;
    }
    return { id: created.id, key: created.key, organization };
  }

  async keys(organization: string): Promise<KeyInfo[]> {
    await this.organization(organization);
    const { rows } = await this.pool.query(
      'SELECT id, organization, hint, created_at, revoked_at FROM api_keys WHERE organization = $1 ORDER BY created_at, id',
      [organization],
    );
    return rows.map((row: Record<string, unknown>) => ({
      id: row.id as string,
      organization: row.organization as string,
      hint: row.hint as string,
      createdAt: iso(row.created_at as Date),
      revokedAt: row.revoked_at ? iso(row.revoked_at as Date) : null,
    }));
  }

  /** Revokes a key; revoking it again changes nothing. */
  async revokeKey(id: string): Promise<KeyInfo> {
    const { rows } = await this.pool.query(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
       RETURNING id, organization, hint, created_at, revoked_at`,
      [id],
    );
    const row = rows[0] as Record<string, unknown> | undefined;
    if (!row) throw new StoreError(`no key ${id}`, 'unknown_key');
    return {
      id: row.id as string,
      organization: row.organization as string,
      hint: row.hint as string,
      createdAt: iso(row.created_at as Date),
      revokedAt: iso(row.revoked_at as Date),
    };
  }

  async grant(organization: string, amount: number, note = 'granted'): Promise<number> {
    if (!Number.isSafeInteger(amount) || amount <= 0)
      throw new StoreError('the amount must be a positive whole number', 'invalid');
    const { rows } = await this.pool.query<{ balance: string }>(
      `WITH credited AS (UPDATE organizations SET balance = balance + $2 WHERE name = $1 RETURNING name, balance),
       entry AS (INSERT INTO ledger (organization, kind, amount, note) SELECT name, 'grant', $2, $3 FROM credited)
       SELECT balance FROM credited`,
      [organization, amount, note],
    );
    if (!rows[0]) throw new StoreError(`no organization ${organization}`, 'unknown_organization');
    return Number(rows[0].balance);
  }

  /** The organization's most recent ledger entries, newest first. */
  async ledger(organization: string, limit = 20): Promise<LedgerEntry[]> {
    const { rows } = await this.pool.query(
      `SELECT id, kind, amount, operation, run_key, note, created_at FROM ledger
       WHERE organization = $1 ORDER BY id DESC LIMIT $2`,
      [organization, limit],
    );
    return rows.map((row: Record<string, unknown>) => ({
      id: Number(row.id),
      kind: row.kind as LedgerEntry['kind'],
      amount: Number(row.amount),
      operation: row.operation as string | null,
      runKey: row.run_key as string | null,
      note: row.note as string | null,
      createdAt: iso(row.created_at as Date),
    }));
  }

  /** Sets the organization's own limits; null goes back to the service's default. */
  async setLimits(
    organization: string,
    limits: { requestsPerMinute?: number | null; concurrentStreams?: number | null },
  ): Promise<Organization> {
    try {
      const { rows } = await this.pool.query(
        `UPDATE organizations SET
           requests_per_minute = CASE WHEN $2 THEN $3::integer ELSE requests_per_minute END,
           concurrent_streams = CASE WHEN $4 THEN $5::integer ELSE concurrent_streams END
         WHERE name = $1 RETURNING *`,
        [
          organization,
          limits.requestsPerMinute !== undefined,
          limits.requestsPerMinute ?? null,
          limits.concurrentStreams !== undefined,
          limits.concurrentStreams ?? null,
        ],
      );
      if (!rows[0]) throw new StoreError(`no organization ${organization}`, 'unknown_organization');
      return toOrganization(rows[0]);
    } catch (err) {
      if (pgCode(err) === CHECK_VIOLATION) throw new StoreError('limits must be positive whole numbers', 'invalid');
      throw err;
    }
  }

  /**
   * Takes the price of a run from its organization's balance, in one statement: the row lock
   * orders concurrent charges, and a balance that does not cover the price is left as it is. The
   * ledger's unique index refuses a second charge for the same run, undoing the statement.
   */
  async charge(charge: Charge): Promise<ChargeResult> {
    try {
      const { rowCount } = await this.pool.query(
        `WITH debited AS (
           UPDATE organizations SET balance = balance - $3 WHERE name = $1 AND balance >= $3 RETURNING name
         )
         INSERT INTO ledger (organization, kind, amount, operation, run_key, expires_at, settled_at, charged_by)
         SELECT name, 'charge', -$3::bigint, $4, $2, $5, CASE WHEN $6 THEN now() END, $7 FROM debited`,
        [
          charge.organization,
          charge.runKey,
          charge.amount,
          charge.operation,
          charge.expiresAt,
          charge.settled ?? false,
          charge.chargedBy ?? null,
        ],
      );
      return rowCount === 1 ? 'charged' : 'insufficient';
    } catch (err) {
      if (pgCode(err) === UNIQUE_VIOLATION) return 'already_charged';
      throw err;
    }
  }

  /**
   * Charges cache hits of the organization at `price` each, in their order, as many as its balance
   * covers, in one statement; returns how many were paid. A hit has nothing to settle: each gets a
   * settled ledger row under its own key.
   */
  async chargeCacheHits(organization: string, price: number, runKeys: string[]): Promise<number> {
    const { rows } = await this.pool.query<{ paid: number }>('SELECT charge_cache_hits($1, $2, $3) AS paid', [
      organization,
      price,
      runKeys,
    ]);
    return rows[0]?.paid ?? 0;
  }

  /**
   * Counts cache hits' requests in the window of `count` and charges, at `price` each and in their
   * order, those within its limit that the balance covers: one statement for both (see
   * migrations/billing/0007). Returns the window's count after them, when it ends (ms since the
   * epoch) and how many hits were paid.
   */
  async countAndChargeCacheHits(
    organization: string,
    price: number,
    runKeys: string[],
    count: { key: string; limit: number; windowMs: number },
  ): Promise<{ counted: number; resetsAt: number; paid: number }> {
    // One message of the simple protocol, where a query with parameters is five (parse, bind,
    // describe, execute, sync): the embedded store runs each message as a call of its own, which
    // cost it a third more CPU per hit. Values are inlined as literals: numbers checked whole,
    // text quoted by pg's own escapeLiteral.
    const args = [
      escapeLiteral(count.key),
      ...[count.limit, count.windowMs, Date.now()].map(wholeNumber),
      escapeLiteral(organization),
      wholeNumber(price),
      `ARRAY[${runKeys.map(escapeLiteral).join(', ')}]::text[]`,
    ];
    const { rows } = await this.pool.query<{ counted: number; resets_at: string; paid: number }>(
      `SELECT * FROM count_and_charge_cache_hits(${args.join(', ')})`,
    );
    const row = rows[0]!;
    return { counted: row.counted, resetsAt: Number(row.resets_at), paid: row.paid };
  }

  /**
   * Pays for a block of up to `wanted` cache hits and, with a `window`, counts their requests in it
   * ahead, in one statement (migrations/billing/0008): at most an eighth of what the balance covers
   * and of what the window has left, and none smaller than `fewest`. Returns how many were granted
   * (0: none, and nothing changed), the window's count after them and its end (ms since the epoch).
   */
  async reserveCacheHits(reservation: HitReservation): Promise<{ granted: number; counted: number; resetsAt: number }> {
    const { window } = reservation;
    const { rows } = await this.pool.query<{ granted: number; counted: number | null; resets_at: string | null }>(
      'SELECT * FROM reserve_cache_hits($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
      [
        reservation.organization,
        reservation.price,
        reservation.wanted,
        reservation.fewest,
        reservation.blockKey,
        reservation.chargedBy,
        reservation.expiresAt,
        window?.key ?? null,
        window?.limit ?? null,
        window?.windowMs ?? null,
        Date.now(),
      ],
    );
    const row = rows[0]!;
    return { granted: row.granted, counted: row.counted ?? 0, resetsAt: Number(row.resets_at ?? 0) };
  }

  /**
   * Settles a block of cache hits: refunds what `usedCredits` leaves of its charge and, while the
   * window that ends at `windowEnds` lasts, takes its unused requests off the count. Only the first
   * settlement of a block does anything (the sweep's included); returns the credits refunded.
   */
  async releaseCacheHits(
    blockKey: string,
    usedCredits: number,
    unusedRequests: number,
    window?: { key: string; ends: number },
  ): Promise<number> {
    const { rows } = await this.pool.query<{ refunded: string }>(
      'SELECT refunded FROM release_cache_hits($1, $2, $3, $4, $5)',
      [blockKey, usedCredits, unusedRequests, window?.key ?? null, window?.ends ?? null],
    );
    return Number(rows[0]?.refunded ?? 0);
  }

  /**
   * Settles a run's charge, refunding it when `refund` is set. Only the first call for a run
   * settles it; any later one, on this process or another, finds nothing and returns undefined.
   */
  async settle(runKey: string, refund: boolean, note: string): Promise<Settled | undefined> {
    const { rows } = await this.pool.query<{ organization: string | null; operation: string; refunded: string | null }>(
      `WITH charge AS (
         UPDATE ledger SET settled_at = now()
         WHERE run_key = $1 AND kind = 'charge' AND settled_at IS NULL
         RETURNING organization, amount, operation
       ),
       refund AS (
         INSERT INTO ledger (organization, kind, amount, operation, run_key, note, settled_at)
         SELECT organization, 'refund', -amount, operation, $1, $3, now() FROM charge WHERE $2
         RETURNING organization, amount
       ),
       credited AS (
         UPDATE organizations SET balance = balance + refund.amount FROM refund
         WHERE organizations.name = refund.organization RETURNING refund.amount
       )
       SELECT (SELECT organization FROM charge) AS organization, (SELECT operation FROM charge) AS operation,
              (SELECT amount FROM credited) AS refunded`,
      [runKey, refund, note],
    );
    const row = rows[0];
    if (!row?.organization) return undefined;
    return { organization: row.organization, operation: row.operation, refunded: Number(row.refunded ?? 0) };
  }

  /** The charge of a run, and whether it was settled and refunded; undefined when it was never charged. */
  async runCharge(runKey: string): Promise<RunCharge | undefined> {
    const { rows } = await this.pool.query<{
      organization: string;
      operation: string;
      amount: string;
      settled: boolean;
      refunded: boolean;
    }>(
      `SELECT organization, operation, -amount AS amount, settled_at IS NOT NULL AS settled,
              EXISTS (SELECT 1 FROM ledger refund WHERE refund.run_key = $1 AND refund.kind = 'refund') AS refunded
       FROM ledger WHERE run_key = $1 AND kind = 'charge'`,
      [runKey],
    );
    const row = rows[0];
    return row && { ...row, amount: Number(row.amount) };
  }

  /** Settles, keeping them, the charges of runs that completed; ones settled already are left alone. */
  async settleKept(runKeys: string[]): Promise<void> {
    // Without waiting for the disk: one lost in a crash is settled again by the sweep (migration 0009).
    await this.pool.query('SELECT settle_kept($1::text[])', [runKeys]);
  }

  /**
   * Charges not yet settled, made or last checked before `before`, the longest unseen first. A
   * charge is abandoned when it is older than `abandonedAfterMs` and its process has not said it
   * is alive for `goneAfterMs`, by the database's clock alone.
   */
  async unsettled(
    before: Date,
    { abandonedAfterMs, goneAfterMs }: { abandonedAfterMs: number; goneAfterMs: number },
    limit = 200,
  ): Promise<Unsettled[]> {
    const { rows } = await this.pool.query<{ run_key: string; expires_at: Date; abandoned: boolean }>(
      `SELECT run_key, expires_at,
              charged_by IS NOT NULL AND created_at < now() - $3 * interval '1 millisecond' AND NOT EXISTS (
                SELECT 1 FROM billing_processes
                WHERE id = ledger.charged_by AND seen_at > now() - $4 * interval '1 millisecond'
              ) AS abandoned
       FROM ledger
       WHERE kind = 'charge' AND settled_at IS NULL AND coalesce(checked_at, created_at) < $1
       ORDER BY coalesce(checked_at, created_at) LIMIT $2`,
      [before, limit, abandonedAfterMs, goneAfterMs],
    );
    return rows.map((row) => ({ runKey: row.run_key, expiresAt: new Date(row.expires_at), abandoned: row.abandoned }));
  }

  /** Says the process is alive, so the charges it made are left to it; forgets processes long gone. */
  async alive(processId: string, forgetAfterMs: number): Promise<void> {
    await this.pool.query(
      `WITH forgotten AS (DELETE FROM billing_processes WHERE seen_at < now() - $2 * interval '1 millisecond')
       INSERT INTO billing_processes (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
      [processId, forgetAfterMs],
    );
  }

  /** Notes that a charge's run was still going, so the next sweep looks at others first. */
  async checked(runKey: string): Promise<void> {
    await this.pool.query(`UPDATE ledger SET checked_at = now() WHERE run_key = $1 AND kind = 'charge'`, [runKey]);
  }
}

function toOrganization(row: Record<string, unknown>): Organization {
  return {
    name: row.name as string,
    balance: Number(row.balance),
    requestsPerMinute: row.requests_per_minute as number | null,
    concurrentStreams: row.concurrent_streams as number | null,
    createdAt: iso(row.created_at as Date),
  };
}
