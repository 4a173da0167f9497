import { rmSync } from 'node:fs';
import { stopStack } from './localStack';
import { givenBackFile } from './sharedStackEnvironment';

export default async function globalTeardown(): Promise<void> {
  const turnFile = process.env.TEST_TURN_FILE;
  if (turnFile) for (const file of [turnFile, givenBackFile(turnFile)]) rmSync(file, { force: true });
  if (globalThis.__STACK__) await stopStack(globalThis.__STACK__);
}
