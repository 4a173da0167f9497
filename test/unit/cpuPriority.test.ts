import { niceForRoles } from '../../src/workers/cpuPriority';

describe('niceForRoles', () => {
  it('lowers a process that runs page roles only', () => {
    expect(niceForRoles(['fetch', 'browser'], 5)).toBe(5);
    expect(niceForRoles(['fetch'], 5)).toBe(5);
    expect(niceForRoles(['browser'], 7)).toBe(7);
  });

  it('keeps a process that runs workflow tasks or model calls at the default', () => {
    expect(niceForRoles(['workflow', 'model'], 5)).toBe(0);
    expect(niceForRoles(['fetch', 'workflow'], 5)).toBe(0);
    expect(niceForRoles(['browser', 'model'], 5)).toBe(0);
    expect(niceForRoles([], 5)).toBe(0);
  });

  it('keeps every process at the default when the setting is 0', () => {
    expect(niceForRoles(['fetch', 'browser'], 0)).toBe(0);
  });
});
