import type { AutomateEvent, ResearchEvent } from '@tabstack/sdk/resources/agent';
import type { AutomateEvents } from '../../src/events/automate';
import type { ResearchEvents } from '../../src/events/research';
import { automateStream, researchStream } from '../../src/events/streams';
import { sdkEventChecker } from '../support/sdkEventSchemas';

/**
 * Our event payloads against the official client's types. The type-level part is checked by
 * `npm run typecheck`: a payload that does not fit, or a name one side lacks, is a compile
 * error naming the event. The runtime part checks built events against JSON Schemas generated
 * from the client's declarations, the same check the stream tests apply to every event.
 */

type SdkData<U, E> = Extract<U, { event: E }> extends { data: infer D } ? D : never;
/** Our events whose payload is not assignable to the client's payload of that name. */
type Misfits<M, U> = { [E in keyof M]: M[E] extends SdkData<U, E> ? never : E }[keyof M];
/** Names the client knows and we lack, and names we have that it lacks. */
type Missing<M, U extends { event: string }> = Exclude<U['event'], keyof M>;
type Unknown<M, U extends { event: string }> = Exclude<keyof M, U['event']>;
/** Spec §6.1 opens the Automate stream with `start` ({task, url}); the client's union lacks it. */
type AutomateSpecOnly = 'start';

// Each Record must be empty: a key named here is an event that fails the check.
export const researchMisfits: Record<Misfits<ResearchEvents, ResearchEvent>, never> = {};
export const researchMissing: Record<Missing<ResearchEvents, ResearchEvent>, never> = {};
export const researchUnknown: Record<Unknown<ResearchEvents, ResearchEvent>, never> = {};
export const automateMisfits: Record<Misfits<AutomateEvents, AutomateEvent>, never> = {};
export const automateMissing: Record<Missing<AutomateEvents, AutomateEvent>, never> = {};
export const automateUnknown: Record<Exclude<Unknown<AutomateEvents, AutomateEvent>, AutomateSpecOnly>, never> = {};

describe('event payloads against @tabstack/sdk', () => {
  const check = sdkEventChecker();

  it('builds failure events the client accepts, for each operation', () => {
    const failure = { code: 'fetch_failed', message: 'failed to fetch URL' };
    const research = researchStream.failureEvent(failure, 1_700_000_000_000);
    const automate = automateStream.failureEvent(failure, 1_700_000_000_000);
    expect(check('research', research)).toEqual([]);
    expect(check('automate', automate)).toEqual([]);
    expect(research.data).toEqual({
      message: 'failed to fetch URL',
      timestamp: 1_700_000_000_000,
      error: { name: 'fetch_failed', message: 'failed to fetch URL' },
    });
    expect(automate.data).toEqual({
      success: false,
      error: { code: 'FETCH_FAILED', message: 'failed to fetch URL', timestamp: '2023-11-14T22:13:20.000Z' },
      message: 'failed to fetch URL',
    });
  });

  it('rejects payloads that do not fit, naming the problem', () => {
    expect(
      check('research', {
        event: 'analyzing:start',
        data: { message: 'm', timestamp: 1, iteration: '1', pageCount: 2 },
      }),
    ).toEqual(['/data/iteration must be number {"type":"number"}']);
    expect(check('research', { event: 'start', data: { message: 'm', timestamp: 1, extra: true } })[0]).toMatch(
      /additional properties/,
    );
    expect(check('automate', { event: 'no:such', data: {} })).toEqual(['no:such is no AutomateEvent type']);
    const start = { task: 'find', url: 'https://example.com', message: 'Starting the task' };
    expect(check('automate', { event: 'start', data: start })).toEqual([]);
    expect(check('automate', { event: 'start', data: { ...start, url: undefined } })[0]).toMatch(
      /required property 'url'/,
    );
    // Every Automate event but `done` carries a message for timelines, which the client's types lack.
    const step = { iterationId: 'iteration-1', timestamp: 1, currentIteration: 1 };
    expect(check('automate', { event: 'agent:step', data: { ...step, message: 'Step 1' } })).toEqual([]);
    expect(check('automate', { event: 'agent:step', data: step })[0]).toMatch(/required property 'message'/);
    expect(check('automate', { event: 'done', data: {} })).toEqual([]);
  });
});
