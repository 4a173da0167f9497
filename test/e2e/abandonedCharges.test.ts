import { ulid } from 'ulid';
import { Store } from '../../src/billing/store';
import { workflowIdOf } from '../../src/events/streams';
import { stackSetting } from '../support/api';
import { eventually } from '../support/eventually';

/**
 * A charge whose run never started, made by an API process that died between the charge and the
 * start (written here as that process would have), is refunded by the stack's sweep once the
 * process is gone, long before the run's deadline; one whose process still says it is alive is
 * left to that process, which may yet start the run.
 */

const PRICE = 10;
/** Far off: a refund before it is the sweep's doing on the process being gone, not on the deadline. */
const DEADLINE_MS = 3_600_000;

let store: Store;
let organization: string;

beforeAll(async () => {
  store = await Store.open(stackSetting('DATABASE_URL')!, 1);
  organization = `abandoned-${ulid().toLowerCase()}`;
  await store.createOrganization(organization);
  await store.grant(organization, 100);
});

afterAll(async () => {
  await store?.close();
});

async function charge(chargedBy: string): Promise<string> {
  const runKey = workflowIdOf(organization, 'extract-markdown', ulid());
  const charged = await store.charge({
    organization,
    runKey,
    operation: 'extract-markdown',
    amount: PRICE,
    expiresAt: new Date(Date.now() + DEADLINE_MS),
    chargedBy,
  });
  expect(charged).toBe('charged');
  return runKey;
}

/** Whether a sweep looked at the charge once it was old enough to count as abandoned (10 s). */
async function lookedAtWhenOld(runKey: string): Promise<boolean> {
  const { rows } = await store.pool.query<{ old: boolean | null }>(
    `SELECT checked_at - created_at > interval '10 seconds' AS old FROM ledger WHERE run_key = $1 AND kind = 'charge'`,
    [runKey],
  );
  return rows[0]?.old === true;
}

it('refunds the charge of a process that is gone, and leaves a living one its charge', async () => {
  const living = `api-test-${ulid().toLowerCase()}`;
  await store.alive(living, 86_400_000);
  // The living process's beat, as StoreBilling's own.
  const beat = setInterval(() => void store.alive(living, 86_400_000), 2000);
  try {
    const gone = await charge(`api-gone-${ulid().toLowerCase()}`);
    const kept = await charge(living);
    expect((await store.organization(organization)).balance).toBe(100 - 2 * PRICE);
    await eventually(async () => (await store.runCharge(gone))?.refunded, {
      what: 'the gone process charge refunded',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await eventually(() => lookedAtWhenOld(kept), {
      what: 'a sweep to look at the living process charge past 10 s',
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    expect(await store.runCharge(kept)).toMatchObject({ settled: false, refunded: false });
  } finally {
    clearInterval(beat);
  }
  expect((await store.organization(organization)).balance).toBe(100 - PRICE);
}, 120_000);
