import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ulid } from 'ulid';
import { Store } from '../../src/billing/store';
import { freePort } from '../../src/stack/ports';
import { post, stackSetting } from '../support/api';
import { eventually } from '../support/eventually';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST } from '../support/localStack';
import { testDataConverter as dataConverter } from '../support/payloadKeys';

/**
 * What `npm run retry` charges (src/billing/retries.ts), against the stack's store: a retry of a
 * run that was refunded costs its price again, a retry of a run whose charge was kept is free.
 */

const RETRY = path.resolve(__dirname, '..', '..', 'dist', 'src', 'tools', 'retryRun.js');
const PRICE = 10;

let fixtures: FixtureServer;
let store: Store;
let connection: Connection;
let client: Client;
let organization: string;
let key: string;
let closedPort: number;

beforeAll(async () => {
  fixtures = await startFixtureServer({ '/missing': html('<html><body>gone</body></html>', 'text/html', 404) });
  closedPort = await freePort(FIXTURE_HOST);
  store = await Store.open(stackSetting('DATABASE_URL')!, 1);
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
  client = new Client({ connection, namespace: process.env.TEST_TEMPORAL_NAMESPACE, dataConverter });
});

// An organization per test: a retry that fails again is refunded later, and that refund must not
// land in the next test's balance.
beforeEach(async () => {
  organization = `retry-${ulid().toLowerCase()}`;
  await store.createOrganization(organization);
  await store.grant(organization, 100);
  ({ key } = await store.createKey(organization));
});

afterAll(async () => {
  await connection?.close();
  await store?.close();
  await fixtures?.close();
});

function retry(workflowId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    execFile(process.execPath, [RETRY, workflowId], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A run that fails, its charge settled: refunded or kept as `url` makes it. */
async function failedAndSettled(url: string, refunded: boolean): Promise<string> {
  const res = await post('/extract/markdown', { url, effort: 'min', nocache: true }, key);
  expect(res.status).toBeGreaterThanOrEqual(400);
  const workflowId = res.headers.get('x-workflow-id')!;
  await eventually(async () => (await store.runCharge(workflowId))?.settled, {
    what: `the charge of ${workflowId} settled`,
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  expect(await store.runCharge(workflowId)).toMatchObject({ amount: PRICE, refunded });
  return workflowId;
}

/** Retries the run; the retry's charge, the balance it left and the credits in the retry's memo. */
async function retried(workflowId: string) {
  const before = (await store.organization(organization)).balance;
  const run = await retry(workflowId);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const retryId = /^new workflow id: (.+)$/m.exec(run.stdout)![1]!;
  const memo = (await client.workflow.getHandle(retryId).describe()).memo;
  return {
    retryId,
    stdout: run.stdout,
    charge: await store.runCharge(retryId),
    spent: before - (await store.organization(organization)).balance,
    credits: memo?.credits,
  };
}

it('charges the retry of a refunded run its price again', async () => {
  const original = await failedAndSettled(`http://${FIXTURE_HOST}:${closedPort}/page`, true);
  // The page is there for the retry, so it succeeds and keeps its charge: one that failed again would
  // be refunded at a moment of its own, and the balance read here could be before or after it.
  const page = http.createServer((_, res) => res.end('<html><body><p>Back again.</p></body></html>'));
  await new Promise<void>((resolve) => page.listen(closedPort, FIXTURE_HOST, resolve));
  try {
    const { retryId, stdout, charge, spent, credits } = await retried(original);
    await expect(client.workflow.getHandle(retryId).result()).resolves.toMatchObject({ content: 'Back again.' });
    expect(stdout).toContain(`charged ${PRICE} credits to ${organization}: its original was refunded`);
    expect(charge).toMatchObject({ organization, operation: 'extract-markdown', amount: PRICE });
    expect(spent).toBe(PRICE);
    expect(credits).toBe(PRICE);
  } finally {
    await new Promise((resolve) => page.close(resolve));
  }
});

it('retries a run whose charge was kept for nothing', async () => {
  const original = await failedAndSettled(fixtures.url('/missing'), false);
  const { stdout, charge, spent, credits } = await retried(original);
  expect(stdout).toContain(`charged nothing: ${organization} paid for its original`);
  expect(charge).toMatchObject({ organization, amount: 0, settled: true });
  expect(spent).toBe(0);
  expect(credits).toBe(0);
});
