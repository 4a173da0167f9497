import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { freePort } from '../../src/stack/ports';
import { startStack, testTopology, type Stack } from './localStack';
import { ensurePrerequisites } from './prerequisites';
import { pythonWithClient } from './pythonClient';

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
    // The official Python client's test makes a virtual environment with it (test/support/pythonClient.ts).
    { name: 'Python 3', executable: 'python3', debianPackage: 'python3-venv', homebrewPackage: 'python' },
  ]);
  pythonWithClient();
  const topology = testTopology();
  // On the cluster, Research is configured, so runs of every operation can be in flight at once
  // (test/e2e/clusterFailover.test.ts serves the search engine on this port).
  const searchPort = topology === 'cluster' ? await freePort() : undefined;
  const stack = await startStack(
    path.resolve(__dirname, '..', '..', 'data', 'test-logs'),
    searchPort ? { SEARXNG_URL: `http://127.0.0.1:${searchPort}` } : {},
    topology,
  );
  globalThis.__STACK__ = stack;
  process.env.TEST_TOPOLOGY = topology;
  process.env.TEST_SEARCH_PORT = searchPort ? String(searchPort) : '';
  process.env.TEST_API_URL = stack.apiUrl;
  // Every API replica; test/support/api.ts spreads requests over them.
  process.env.TEST_API_URLS = JSON.stringify(stack.apiUrls);
  process.env.TEST_PIDS = JSON.stringify(stack.pids);
  process.env.TEST_API_KEY = stack.apiKey;
  process.env.TEST_OTHER_ORG_KEY = stack.otherOrgKey;
  process.env.TEST_TEMPORAL_ADDRESS = stack.temporalAddress;
  process.env.TEST_TEMPORAL_NAMESPACE = stack.namespace;
  process.env.TEST_GEO_PROXY_PORT = String(stack.geoProxyPort);
  process.env.TEST_MODEL_URL = stack.modelUrl;
  process.env.TEST_STACK_ENV = JSON.stringify(stack.env);
  // The turn of the files on this stack (test/support/sharedStackEnvironment.ts), one per run.
  process.env.TEST_TURN_FILE = path.join(os.tmpdir(), `webloom-e2e-turn-${process.pid}`);
  process.env.TEST_API_PID = String(stack.pids.api ?? stack.pids['api-1'] ?? '');
  // Process ids of the worker processes by their roles ('fetch,browser'), for tests that watch their memory.
  const workers = Object.entries(stack.pids).filter(([name]) => name.startsWith('worker '));
  process.env.TEST_WORKER_PIDS = JSON.stringify(
    Object.fromEntries(workers.map(([name, pid]) => [name.slice('worker '.length), pid])),
  );
}
