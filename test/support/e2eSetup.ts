import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startStack, type Stack } from './localStack';
import { ensurePrerequisites } from './prerequisites';

declare global {
  var __STACK__: Stack | undefined;
}

/** One real stack for the whole test run; test files reach it through environment variables. */
export default async function globalSetup(): Promise<void> {
  ensurePrerequisites('e2e', [
    {
      name: 'Chromium',
      executable: loadConfig().browser.executablePath,
      debianPackage: 'chromium',
      homebrewPackage: '--cask chromium',
    },
    { name: 'redis-server', executable: 'redis-server', debianPackage: 'redis-server', homebrewPackage: 'redis' },
  ]);
  const stack = await startStack(path.resolve(__dirname, '..', '..', 'data', 'test-logs'));
  globalThis.__STACK__ = stack;
  process.env.TEST_API_URL = stack.apiUrl;
  process.env.TEST_API_KEY = stack.apiKey;
  process.env.TEST_OTHER_ORG_KEY = stack.otherOrgKey;
  process.env.TEST_TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.TEST_TEMPORAL_NAMESPACE = stack.namespace;
  process.env.TEST_GEO_PROXY_PORT = String(stack.geoProxyPort);
  process.env.TEST_MODEL_URL = stack.modelUrl;
  process.env.TEST_STACK_ENV = JSON.stringify(stack.env);
  process.env.TEST_API_PID = String(stack.pids.api ?? '');
  // Process ids of the worker processes by their roles ('fetch,browser'), for tests that watch their memory.
  const workers = Object.entries(stack.pids).filter(([name]) => name.startsWith('worker '));
  process.env.TEST_WORKER_PIDS = JSON.stringify(
    Object.fromEntries(workers.map(([name, pid]) => [name.slice('worker '.length), pid])),
  );
}
