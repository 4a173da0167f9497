import type { Client } from '@temporalio/client';
import { runSettlement } from './settlement';
import type { Store } from './store';

/**
 * What a retry of a run (`npm run retry`) costs. Its caller paid for the original request once,
 * and the original's settlement decided whether that payment stands (README, Credits):
 * - refunded (it failed through our fault): the retry is charged the original's price, as the
 *   request would be again, and settled by the same table: the caller pays once for one answer;
 * - kept (completed, cancelled, or failed through its caller's fault), or still held because the
 *   original still runs (`--force`): the retry is free, the request being paid for already;
 * - never charged (billing was off): the retry is not charged either.
 * The retry's charge, free or not, is a ledger row under its own workflow id: charged once.
 */

export type RetryCharge =
  | { state: 'charged'; organization: string; credits: number; originalRefunded: boolean }
  | { state: 'insufficient'; organization: string; credits: number }
  | { state: 'unbilled' };

export async function chargeRetry(
  store: Store,
  client: Client,
  original: string,
  retry: { workflowId: string; expiresAt: Date },
): Promise<RetryCharge> {
  let charge = await store.runCharge(original);
  if (!charge) return { state: 'unbilled' };
  if (!charge.settled) {
    // An ended run the sweep has not reached yet: settled here, by the same rules, so the price is known.
    const run = await runSettlement(client, original);
    if (run.state === 'ended') {
      await store.settle(original, run.refund, run.note);
      charge = (await store.runCharge(original)) ?? charge;
    }
  }
  const credits = charge.refunded ? charge.amount : 0;
  const result = await store.charge({
    organization: charge.organization,
    runKey: retry.workflowId,
    operation: charge.operation,
    amount: credits,
    expiresAt: retry.expiresAt,
    // A free retry has nothing to give back.
    settled: credits === 0,
  });
  if (result === 'insufficient') return { state: 'insufficient', organization: charge.organization, credits };
  return { state: 'charged', organization: charge.organization, credits, originalRefunded: charge.refunded };
}
