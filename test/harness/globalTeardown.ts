import { stopStack } from './stack';

export default async function globalTeardown(): Promise<void> {
  if (globalThis.__STACK__) await stopStack(globalThis.__STACK__);
}
