import { actionOf, describedAction, fillOf, MAX_WAIT_SECONDS, shownArguments } from '../../src/automate/actions';
import type { Decision } from '../../src/prompts/automate.v1';
import { decision } from '../support/agentScript';

const request = { task: 'Find the price', interactive: false };

describe('actionOf', () => {
  it.each<[string, Partial<Decision>, unknown]>([
    ['a click', { action: 'click', ref: 'e1' }, { type: 'click', ref: 'e1' }],
    [
      'a fill by data path',
      { action: 'fill', ref: 'e2', dataPath: 'user.email' },
      { type: 'fill', ref: 'e2', value: '', dataPath: 'user.email' },
    ],
    ['a fill with an empty value', { action: 'fill', ref: 'e2', value: '' }, { type: 'fill', ref: 'e2', value: '' }],
    ['a select', { action: 'select', ref: 'e3', value: 'DE' }, { type: 'select', ref: 'e3', value: 'DE' }],
    ['a press on the page', { action: 'press', key: 'Enter' }, { type: 'press', key: 'Enter' }],
    ['a press on an element', { action: 'press', key: 'Enter', ref: 'e4' }, { type: 'press', key: 'Enter', ref: 'e4' }],
    ['a scroll with no direction', { action: 'scroll' }, { type: 'scroll', direction: 'down' }],
    [
      'a navigation',
      { action: 'navigate', url: 'https://a.example/' },
      { type: 'navigate', url: 'https://a.example/' },
    ],
    ['a wait of no stated length', { action: 'wait' }, { type: 'wait', seconds: 1 }],
    ['a wait too long', { action: 'wait', seconds: 600 }, { type: 'wait', seconds: MAX_WAIT_SECONDS }],
    ['a wait below zero', { action: 'wait', seconds: -3 }, { type: 'wait', seconds: 0 }],
    ['an extraction with no instruction', { action: 'extract' }, { type: 'extract', instruction: 'Find the price' }],
    ['a done with no text', { action: 'done' }, { type: 'done', answer: '' }],
    ['an abort with no reason', { action: 'abort' }, { type: 'abort', reason: 'the agent gave up' }],
  ])('takes %s', (_name, partial, expected) => {
    expect(actionOf(decision(partial), request)).toEqual(expected);
  });

  it.each<[string, Partial<Decision>, string]>([
    ['a click without ref', { action: 'click' }, 'the click action needs a ref'],
    ['a fill without value', { action: 'fill', ref: 'e2' }, 'the fill action needs a value'],
    ['a select without ref', { action: 'select', value: 'DE' }, 'the select action needs a ref'],
    ['a select without value', { action: 'select', ref: 'e3' }, 'the select action needs a value'],
    ['a press without key', { action: 'press' }, 'the press action needs a key'],
    ['a navigation without url', { action: 'navigate' }, 'the navigate action needs a url'],
    [
      'an input request outside interactive mode',
      { action: 'request_input', ref: 'e5' },
      'input requests need interactive mode',
    ],
  ])('refuses %s, saying why', (_name, partial, why) => {
    expect(actionOf(decision(partial), request)).toBe(why);
  });

  it('asks for input in interactive mode, and needs a ref for it', () => {
    const interactive = { ...request, interactive: true };
    expect(actionOf(decision({ action: 'request_input', ref: 'e5', text: 'Payment' }), interactive)).toEqual({
      type: 'request_input',
      ref: 'e5',
      description: 'Payment',
    });
    expect(actionOf(decision({ action: 'request_input' }), interactive)).toBe('the request_input action needs a ref');
  });
});

describe('fillOf', () => {
  const data = { user: { email: 'alice@example.org', password: 'hunter2-secret' }, note: 'hello' };

  it('types the value a data path names, a credential by its key', () => {
    expect(fillOf({ type: 'fill', ref: 'e1', value: '', dataPath: 'user.password' }, data)).toEqual({
      type: 'fill',
      ref: 'e1',
      value: 'hunter2-secret',
      source: 'data',
      credential: true,
    });
    expect(fillOf({ type: 'fill', ref: 'e1', value: '', dataPath: 'data.note' }, data)).toMatchObject({
      value: 'hello',
      credential: false,
    });
  });

  it('refuses a data path that names nothing', () => {
    expect(fillOf({ type: 'fill', ref: 'e1', value: '', dataPath: 'user.phone' }, data)).toBe(
      'the data holds nothing at user.phone',
    );
  });

  it("knows a value the model copied from the data, and the model's own", () => {
    expect(fillOf({ type: 'fill', ref: 'e1', value: 'hunter2-secret' }, data)).toMatchObject({
      source: 'data',
      credential: true,
    });
    expect(fillOf({ type: 'fill', ref: 'e1', value: 'Berlin' }, data)).toEqual({
      type: 'fill',
      ref: 'e1',
      value: 'Berlin',
      source: 'model',
      credential: false,
    });
  });
});

describe('shownArguments', () => {
  it('shows a value from the data by its path or origin, never the value', () => {
    expect(shownArguments({ type: 'fill', ref: 'e1', value: '', dataPath: 'user.password' })).toEqual({
      ref: 'e1',
      value: 'data.user.password',
    });
    expect(shownArguments({ type: 'fill', ref: 'e1', value: 'hunter2', source: 'data', credential: true })).toEqual({
      ref: 'e1',
      value: '(from data)',
    });
    expect(shownArguments({ type: 'fill', ref: 'e1', value: 'Berlin', source: 'model', credential: false })).toEqual({
      ref: 'e1',
      value: 'Berlin',
    });
  });

  it.each<[Parameters<typeof shownArguments>[0], { ref: string | null; value: string | null }]>([
    [
      { type: 'select', ref: 'e3', value: 'DE' },
      { ref: 'e3', value: 'DE' },
    ],
    [
      { type: 'press', key: 'Enter' },
      { ref: null, value: 'Enter' },
    ],
    [
      { type: 'navigate', url: 'https://a.example/' },
      { ref: null, value: 'https://a.example/' },
    ],
    [
      { type: 'scroll', direction: 'up' },
      { ref: null, value: 'up' },
    ],
    [
      { type: 'click', ref: 'e1' },
      { ref: 'e1', value: null },
    ],
    [
      { type: 'done', answer: '12 EUR' },
      { ref: null, value: null },
    ],
  ])('shows %o as %o', (action, shown) => {
    expect(shownArguments(action)).toEqual(shown);
  });
});

describe('describedAction', () => {
  it('names the action, its ref and its shown value, as far as it has them', () => {
    expect(describedAction('fill', { ref: 'e1', value: 'data.user.email' })).toBe('fill e1 "data.user.email"');
    expect(describedAction('press', { ref: null, value: 'Enter' })).toBe('press "Enter"');
    expect(describedAction('click', { ref: 'e1', value: null })).toBe('click e1');
  });
});
