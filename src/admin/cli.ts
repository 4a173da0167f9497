#!/usr/bin/env node
import path from 'node:path';
import { parseArgs } from 'node:util';
import { embeddedStoreUrl } from '../billing/embeddedStore';
import { Store, StoreError } from '../billing/store';
import { readBilling } from '../config/billingSettings';
import { ConfigError } from '../config/configError';
import { runCommand, USAGE, UsageError } from './commands';

/**
 * `npm run admin -- <command>` (or the `webloom-admin` bin): manages organizations, keys, credits
 * and limits in the store named by DATABASE_URL, else the embedded store of `npm start` in
 * DATA_DIR. Exit codes: 0 done, 1 refused (unknown organization...), 2 bad usage.
 */

function storeUrl(): string {
  const configured = readBilling(process.env).databaseUrl;
  if (configured) return configured;
  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || path.join(process.cwd(), 'data'));
  return embeddedStoreUrl(path.join(dataDir, 'store'));
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: {
        json: { type: 'boolean' },
        'per-minute': { type: 'string' },
        streams: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    console.log(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const json = parsed.values.json === true;
  let store: Store | undefined;
  try {
    store = await Store.open(storeUrl(), 1);
    const answer = await runCommand(store, {
      words: parsed.positionals,
      perMinute: parsed.values['per-minute'],
      streams: parsed.values.streams,
    });
    console.log(json ? JSON.stringify(answer.json) : answer.text.join('\n'));
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (json) console.error(JSON.stringify({ error: message }));
    else console.error(message);
    if (err instanceof UsageError) return 2;
    if (err instanceof StoreError || err instanceof ConfigError) return 1;
    console.error(err);
    return 1;
  } finally {
    await store?.close();
  }
}

void main().then((code) => process.exit(code));
