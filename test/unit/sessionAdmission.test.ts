import { SessionAdmission, WAITER_FRESH_MS } from '../../src/browser/sessionAdmission';

describe('SessionAdmission', () => {
  let clock = 0;
  const now = () => clock;

  beforeEach(() => {
    clock = 0;
  });

  it('admits while slots are free and nobody waits, and refuses once they are all held', () => {
    const admission = new SessionAdmission(2, now);
    expect(admission.admit('a1', 'a', [])).toBe(true);
    expect(admission.admit('a2', 'a', ['a'])).toBe(true);
    expect(admission.admit('a3', 'a', ['a', 'a'])).toBe(false);
    expect(admission.waiters).toBe(1);
  });

  it('gives a freed slot to the waiting organization that holds fewest, though another asked first', () => {
    const admission = new SessionAdmission(2, now);
    expect(admission.admit('a3', 'a', ['a', 'a'])).toBe(false);
    expect(admission.admit('a4', 'a', ['a', 'a'])).toBe(false);
    clock += 1_000;
    expect(admission.admit('b1', 'b', ['a', 'a'])).toBe(false);
    // One of a's sessions ended: the earlier waiters of a ask first, and are still refused.
    clock += 1_000;
    expect(admission.admit('a3', 'a', ['a'])).toBe(false);
    expect(admission.admit('a4', 'a', ['a'])).toBe(false);
    expect(admission.admit('b1', 'b', ['a'])).toBe(true);
    // The next slot goes to a again, in the order its tasks first asked.
    expect(admission.admit('a4', 'a', ['b'])).toBe(false);
    expect(admission.admit('a3', 'a', ['b'])).toBe(true);
  });

  it('hands several free slots out across organizations, the one holding fewest first', () => {
    const admission = new SessionAdmission(4, now);
    const full = ['a', 'a', 'b', 'b'];
    for (const [id, organization] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['c1', 'c'],
      ['c2', 'c'],
    ] as const)
      expect(admission.admit(id, organization, full)).toBe(false);
    // Two slots free: the first to c (holding none), the second to a's first waiter (a and c then hold one each).
    expect(admission.admit('a2', 'a', ['a', 'b'])).toBe(false);
    expect(admission.admit('c2', 'c', ['a', 'b'])).toBe(false);
    expect(admission.admit('a1', 'a', ['a', 'b'])).toBe(true);
    expect(admission.admit('c1', 'c', ['a', 'a', 'b'])).toBe(true);
  });

  it('forgets a waiter that stopped asking, so its place goes to the next', () => {
    const admission = new SessionAdmission(1, now);
    expect(admission.admit('b1', 'b', ['a'])).toBe(false);
    clock += 1_000;
    expect(admission.admit('a2', 'a', ['a'])).toBe(false);
    clock += WAITER_FRESH_MS;
    expect(admission.admit('a2', 'a', [])).toBe(true);
    expect(admission.waiters).toBe(0);
  });
});
