import { stopStack } from './localStack';

export default async function globalTeardown(): Promise<void> {
  if (globalThis.__STACK__) await stopStack(globalThis.__STACK__);
}
