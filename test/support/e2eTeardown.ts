import { rmSync } from 'node:fs';
import { stopStack } from './localStack';

export default async function globalTeardown(): Promise<void> {
  if (process.env.TEST_TURN_FILE) rmSync(process.env.TEST_TURN_FILE, { force: true });
  if (globalThis.__STACK__) await stopStack(globalThis.__STACK__);
}
