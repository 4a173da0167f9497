import { ConfigError, loadConfig } from '../../src/config';
import { msToNumber } from '@temporalio/common';
import { activityTimeouts, automateOptions } from '../../src/config/timeouts';

describe('timeouts', () => {
  it('gives each activity the limits it must contain, plus room to finish', () => {
    const config = loadConfig({
      RENDER_TIMEOUT_MS: '120000',
      FETCH_TIMEOUT_MS: '20000',
      CONVERT_TIMEOUT_MS: '10000',
      MODEL_TIMEOUT_MS: '200000',
      SEARCH_TIMEOUT_MS: '120000',
    });
    expect(activityTimeouts(config)).toEqual({
      fetchMs: 45_000,
      quickFetchMs: 30_000,
      renderMs: 145_000,
      modelMs: 215_000,
      searchMs: 135_000,
      stepMs: 90_000,
    });
  });

  it("gives the page activities a request's own limit in place of the settings'", () => {
    const config = loadConfig({ FETCH_TIMEOUT_MS: '10000', CONVERT_TIMEOUT_MS: '20000' });
    expect(activityTimeouts(config, 60_000)).toEqual(
      expect.objectContaining({ fetchMs: 95_000, quickFetchMs: 95_000, renderMs: 95_000 }),
    );
  });

  it("gives an automate step time for the page text's reading, within CONVERT_TIMEOUT_MS", () => {
    const config = loadConfig({ CONVERT_TIMEOUT_MS: '120000' });
    const { step } = automateOptions(activityTimeouts(config));
    expect(msToNumber(step.startToCloseTimeout!)).toBeGreaterThan(120_000);
  });

  it.each([
    [
      { RENDER_TIMEOUT_MS: '300000' },
      /^RENDER_TIMEOUT_MS \(with CONVERT_TIMEOUT_MS\): one attempt may take 335 s, more than the 175 s/,
    ],
    [{ FETCH_TIMEOUT_MS: '200000' }, /^FETCH_TIMEOUT_MS/],
    [{ FETCH_MIN_EFFORT_TIMEOUT_MS: '200000' }, /^FETCH_MIN_EFFORT_TIMEOUT_MS/],
    [{ MODEL_TIMEOUT_MS: '600000' }, /^MODEL_TIMEOUT_MS: one attempt may take 615 s, more than the 295 s/],
  ])('refuses at start a limit one attempt could not keep within its operation: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
