import { ConfigError } from './configError';

/**
 * Billing: where organizations, keys and the ledger live, and what each operation costs. Its own
 * reader, so the config loader calls it with one line.
 */

/** What a run is priced as: its operation, and Research by its mode. */
export const PRICED_OPERATIONS = [
  'extract-markdown',
  'extract-json',
  'generate-json',
  'automate',
  'research-fast',
  'research-balanced',
] as const;
export type PricedOperation = (typeof PRICED_OPERATIONS)[number];

/** The hosted service's published credit costs. */
export const DEFAULT_PRICES: Readonly<Record<PricedOperation, number>> = {
  'extract-markdown': 10,
  'extract-json': 50,
  'generate-json': 100,
  automate: 100,
  'research-fast': 250,
  'research-balanced': 350,
};

export interface BillingSettings {
  /**
   * PostgreSQL holding organizations, keys and the ledger. Unset: billing is off, keys come from
   * API_KEYS alone and nothing is charged (the launchers always set it).
   */
  databaseUrl?: string;
  /** The opening balance of an organization that API_KEYS creates. */
  apiKeysCredits: number;
  prices: Record<PricedOperation, number>;
  /** An Extract Markdown answered from the cache. */
  cacheHitPrice: number;
  /** How long an API process trusts a key it has looked up: a revoked key is refused within this. */
  keyCacheMs: number;
  /** How often an API process settles the charges of runs that have ended (refunds). */
  settleIntervalMs: number;
}

type Env = Record<string, string | undefined>;

/** The variable of an operation's price: PRICE_EXTRACT_MARKDOWN, PRICE_RESEARCH_FAST... */
export const priceVariable = (operation: PricedOperation): string =>
  `PRICE_${operation.toUpperCase().replaceAll('-', '_')}`;

function readCount(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value > max) throw new ConfigError(name, `must be at most ${max}, got ${value}`);
  return value;
}

function readDatabaseUrl(env: Env): string | undefined {
  const value = env.DATABASE_URL?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL', 'not a URL; expected postgresql://user:password@host:port/database');
  }
  if (!['postgres:', 'postgresql:'].includes(url.protocol))
    throw new ConfigError('DATABASE_URL', `expected a postgresql:// URL, got ${url.protocol}`);
  return value;
}

const MAX_PRICE = 1_000_000;

export function readBilling(env: Env): BillingSettings {
  const settings: BillingSettings = {
    databaseUrl: readDatabaseUrl(env),
    apiKeysCredits: readCount(env, 'API_KEYS_CREDITS', 1_000_000, 1_000_000_000_000),
    prices: Object.fromEntries(
      PRICED_OPERATIONS.map((operation) => [
        operation,
        readCount(env, priceVariable(operation), DEFAULT_PRICES[operation], MAX_PRICE),
      ]),
    ) as Record<PricedOperation, number>,
    cacheHitPrice: readCount(env, 'PRICE_CACHE_HIT', 1, MAX_PRICE),
    keyCacheMs: readCount(env, 'KEY_CACHE_MS', 500, 1000),
    settleIntervalMs: Math.max(100, readCount(env, 'BILLING_SETTLE_INTERVAL_MS', 5000, 600_000)),
  };
  return settings;
}
