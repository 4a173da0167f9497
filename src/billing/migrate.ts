import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { runner } from 'node-pg-migrate';

/** Found by walking up: this runs from src/billing (tests) and from dist/src/billing. */
export function migrationsDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'migrations', 'billing');
    if (existsSync(candidate)) return candidate;
    if (dir === path.dirname(dir)) throw new Error(`no migrations/billing above ${__dirname}`);
  }
}

/**
 * Applies the store's migrations that the database lacks. node-pg-migrate holds a PostgreSQL
 * advisory lock while it reads and applies them, so processes starting at once apply each once.
 */
export async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await runner({
      dbClient: client,
      dir: migrationsDir(),
      migrationsTable: 'billing_migrations',
      direction: 'up',
      // A process starting beside another waits for its migrations, then finds nothing left to do.
      advisoryLockMode: 'wait',
      count: Infinity,
      log: () => undefined,
    });
  } finally {
    client.release();
  }
}
