import { ApplicationFailure } from '@temporalio/common';
import { failedRunSettlement } from '../../src/billing/settlement';

/** The failed rows of the refund table (README, Credits), from the failure a workflow ends with. */

const failure = (type: string, details?: unknown[]) =>
  ApplicationFailure.create({ message: type, type, nonRetryable: true, details });

/** As a workflow rethrows an activity's failure: the service's code on the cause. */
const wrapped = (cause: ApplicationFailure) =>
  ApplicationFailure.create({ message: 'activity failed', type: 'ActivityFailure', cause });

it.each([
  ['a caller error (422 internal address)', false, failure('internal_address')],
  ['a caller error (400 invalid URL format)', false, failure('url_format')],
  ['a page that answered 404', false, wrapped(failure('fetch_failed', [{ httpStatus: 404 }]))],
  ['a page that answered 403', false, failure('fetch_failed', [{ httpStatus: 403 }])],
  ['a page too large', false, failure('page_too_large')],
  ['a page too large to convert to Markdown', false, failure('page_too_large_to_convert')],
  ['a client that left its stream', false, failure('stream_abandoned')],
  ['a fetch that failed without an answer', true, wrapped(failure('fetch_failed'))],
  ['a page that answered 503', true, failure('fetch_failed', [{ httpStatus: 503 }])],
  ['a conversion that failed', true, failure('conversion_failed')],
  ['a model that failed', true, failure('generation_failed')],
  ['a search that failed', true, failure('search_failed')],
  ['an internal error', true, failure('internal')],
  ['a failure with no code at all', true, new Error('boom')],
])('settles %s: refunded %s', (_, refund, err) => {
  expect(failedRunSettlement(err).refund).toBe(refund);
});
