import pino from 'pino';
import { SdkComponent } from '@temporalio/common';
import { ConfigError, loadConfig } from '../../src/config';
import { childLineFormat, drivesTerminal, jsonLine, prettyLines, writesPretty } from '../../src/telemetry/logFormat';
import { temporalLogger } from '../../src/telemetry/logger';

/** What a terminal gets and what a log file gets: readable lines on a TTY, JSON lines elsewhere. */

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 27, 9, 41, 2, 7), pid: 7, name: 'worker', ...fields });

describe('the format decision', () => {
  it.each([
    ['auto', true, true],
    ['auto', false, false],
    ['auto', undefined, false],
    ['json', true, false],
    ['pretty', false, true],
    ['pretty', undefined, true],
  ] as const)('LOG_FORMAT=%s with stdout a TTY: %s gives pretty %s', (format, isTTY, pretty) => {
    expect(writesPretty(format, isTTY)).toBe(pretty);
  });

  it('reads LOG_FORMAT, auto by default, and refuses others', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
  });

  it('relays a child line as JSON naming the process when not pretty', () => {
    const relay = childLineFormat('auto', false);
    const out = relay('worker fetch,browser', line({ msg: 'workers ready' }));
    expect(JSON.parse(out)).toMatchObject({ level: 30, msg: 'workers ready', process: 'worker fetch,browser' });
    expect(childLineFormat('json', true)('api', line({ msg: 'x' }))).toBe(jsonLine('api', line({ msg: 'x' })));
    expect(jsonLine('temporal', 'time=now level=INFO msg=started')).toBe('[temporal] time=now level=INFO msg=started');
  });
});

describe('a pretty line', () => {
  const pretty = prettyLines(false);

  it('is one line: time, level, process name, message, then the other fields', () => {
    const out = pretty('worker fetch,browser', line({ msg: 'workers ready', queues: ['webloom-fetch'] }));
    expect(out).toMatch(
      /^\[\d\d:\d\d:\d\d\.007\] INFO \(worker fetch,browser\): workers ready \{"queues":\["webloom-fetch"\]\}$/,
    );
  });

  it('colours the level on a terminal', () => {
    expect(prettyLines(true)('api', line({ level: 50, msg: 'failed' }))).toContain('\u001b[31mERROR\u001b[39m');
  });

  it("shows a line that is not pino's as the process's info", () => {
    expect(pretty('temporal', 'Temporal server started')).toMatch(
      /^\[[\d:.]+\] INFO \(temporal\): Temporal server started$/,
    );
  });

  it('lets no logged text drive the terminal', () => {
    const hostile = 'title\u001b[2J\u001b]0;owned\u0007\r[00:00:00.000] INFO (api): forged\u202egnp.exe\u009b31m';
    const out = [pretty('api', line({ msg: hostile, url: hostile, [hostile]: 1 })), pretty('temporal', hostile)].join(
      '\n',
    );
    expect([...out].filter((char) => drivesTerminal(char.charCodeAt(0), true))).toEqual([]);
    expect(out.split('\n')).toHaveLength(2);
    expect(out).toContain('title\\u001b[2J');
  });

  it('survives a line nested deeper than the stack', () => {
    const deep = `{"msg":"deep","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(() => pretty('api', deep)).not.toThrow();
  });
});

describe("the SDK's lines through the Runtime logger", () => {
  function logged(): { lines: Record<string, unknown>[]; logger: pino.Logger } {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (text: string) => void lines.push(JSON.parse(text)) });
    return { lines, logger };
  }

  it("keeps the workers' per-queue state lines out of the default level, and their real warnings in", () => {
    const { lines, logger } = logged();
    const sdk = temporalLogger(logger);
    for (const taskQueue of ['webloom-workflows', 'webloom-fetch', 'webloom-browser'])
      for (const state of ['INITIALIZED', 'RUNNING'])
        sdk.info('Worker state changed', { sdkComponent: SdkComponent.worker, taskQueue, state });
    sdk.info('No Nexus services registered, not polling for Nexus tasks', { sdkComponent: SdkComponent.worker });
    sdk.warn('No workflows registered, not polling for workflow tasks', {
      sdkComponent: SdkComponent.worker,
      taskQueue: 'webloom-fetch',
    });
    sdk.warn('No activities registered, not polling for activity tasks', {
      sdkComponent: SdkComponent.worker,
      taskQueue: 'webloom-workflows',
    });
    sdk.warn('Worker failed to poll', { sdkComponent: SdkComponent.worker, taskQueue: 'webloom-fetch' });
    sdk.info('research started', { sdkComponent: SdkComponent.workflow, workflowId: 'org/research/01' });
    sdk.info('page read', { sdkComponent: SdkComponent.activity, workflowId: 'org/research/01' });
    expect(lines.map((entry) => entry.msg)).toEqual(['Worker failed to poll', 'research started', 'page read']);
  });
});
