import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReliabilityRecord, ReliabilityRow } from '../support/reliabilityRecord';
import { cell, readRecords, renderReliabilityReport } from '../support/reliabilityReport';

const run = (commit: string): ReliabilityRecord['run'] => ({
  commit,
  startedAt: '2026-11-27T12:03:51.123Z',
  topology: 'dev',
  cores: 2,
  loadAverage: 3.5,
});

const row = (fault: string, target: string, ok = true, figures?: ReliabilityRow['figures']): ReliabilityRow => ({
  fault,
  target,
  outcome: ok ? '422 access to internal resources is not allowed' : '200',
  ok,
  ...(figures ? { figures } : {}),
});

const fuzz: ReliabilityRecord = {
  suite: 'fuzz-unit',
  run: run('abc1234'),
  rows: [
    {
      fault: 'fuzzed body',
      target: 'extractMarkdown',
      outcome: '400 267, read 33',
      ok: true,
      figures: { tried: 300, seed: 7, runs: 300 },
    },
    {
      fault: 'fuzzed body',
      target: 'research',
      outcome: '400 290, read 10',
      ok: true,
      figures: { tried: 300, seed: 7, runs: 300 },
    },
  ],
};

const addresses: ReliabilityRecord = {
  suite: 'address-policy',
  run: run('def5678'),
  rows: [
    row('127.0.0.1', 'named, min', true, { 'canary hits': 0 }),
    row('[::1]', 'named, min', true, { 'canary hits': 0 }),
    row('127.0.0.1', 'redirect, max', false, { 'canary hits': 1 }),
  ],
};

const load: ReliabilityRecord = {
  suite: 'load',
  run: run('def5678'),
  rows: [
    {
      fault: 'concurrency 1',
      target: 'Extract Markdown',
      outcome: '50 answered',
      ok: true,
      figures: { 'req/s': 8.3, 'p50 ms': 110 },
    },
    {
      fault: 'concurrency 2',
      target: 'Extract Markdown',
      outcome: '90 answered',
      ok: true,
      figures: { 'req/s': 15, 'p50 ms': 120 },
    },
    { fault: 'peak memory', target: 'api', outcome: '90 MB', ok: true, figures: { 'process MB': 90 } },
  ],
};

const unknown: ReliabilityRecord = {
  suite: 'zz-new-suite',
  run: run('0000001'),
  rows: [row('something odd', 'somewhere', true)],
};

describe('renderReliabilityReport', () => {
  const report = renderReliabilityReport([unknown, load, addresses, fuzz]);

  it('gives the same document for the same records, in whatever order they come', () => {
    expect(renderReliabilityReport([fuzz, addresses, load, unknown])).toBe(report);
    expect(report.endsWith('\n')).toBe(true);
    const another = { ...unknown, suite: 'aa-other-suite' };
    expect(renderReliabilityReport([unknown, another, fuzz])).toBe(renderReliabilityReport([fuzz, another, unknown]));
  });

  it('sums up every suite, naming the run each comes from, and says which did not run', () => {
    expect(report).toContain(
      '**9 tried, 8 as required, 1 not.** 600 generated inputs in all. 1 arrivals at the canary.',
    );
    expect(report).toContain('Not as required in: Address policy.');
    expect(report).toContain('| Request fuzzing, body readers | abc1234, 2026-11-27 12:03 UTC | 2 | 2 | 0 |');
    expect(report).toContain('| Process kills | not run |  |  |  |');
    expect(report).toMatch(
      /^Not run: Process kills; Process kills, short version; Browser faults; Model and search engine faults; Request fuzzing, over HTTP; Hostile pages; Hostile inputs to Automate\.$/m,
    );
  });

  it('gives each known suite its section, in a fixed order, and "not run" without a record', () => {
    const headings = report.split('\n').filter((text) => text.startsWith('## '));
    expect(headings).toEqual([
      '## Summary',
      '## Process kills',
      '## Process kills, short version',
      '## Browser faults',
      '## Model and search engine faults',
      '## Request fuzzing, body readers',
      '## Request fuzzing, over HTTP',
      '## Hostile pages',
      '## Hostile inputs to Automate',
      '## Address policy',
      '## Load',
      '## zz-new-suite',
    ]);
    const chaos = report.slice(report.indexOf('## Process kills\n'), report.indexOf('## Process kills, short'));
    expect(chaos).toContain('_Not run: no record of this suite in the last runs._');
  });

  it("names each section's run and tallies its rows", () => {
    const section = report.slice(
      report.indexOf('## Request fuzzing, body readers'),
      report.indexOf('## Request fuzzing, over'),
    );
    expect(section).toContain(
      'Run: commit `abc1234`, started 2026-11-27 12:03 UTC, dev topology, 2 cores, load average 3.5 at the start.',
    );
    expect(section).toContain('**2 tried, 2 as required, 0 not.** 600 generated inputs in all.');
    expect(section).toContain('| Fault | Target | Outcome | As required | tried | seed | runs |');
    expect(section).toContain('| fuzzed body | extractMarkdown | 400 267, read 33 | yes | 300 | 7 | 300 |');
  });

  it('names both topologies of a suite whose rows ran on each', () => {
    const chaos: ReliabilityRecord = {
      suite: 'chaos',
      run: run('def5678'),
      rows: [
        row('kill -9 API', 'Research stream', true, { topology: 'dev' }),
        row('kill -9 API replica 1', 'Research stream', true, { topology: 'cluster' }),
      ],
    };
    const section = renderReliabilityReport([chaos]);
    expect(section).toContain(
      'Run: commit `def5678`, started 2026-11-27 12:03 UTC, dev and cluster topologies, 2 cores',
    );
  });

  it('shows the address battery as addresses by paths, and the rows not as required in full', () => {
    const section = report.slice(report.indexOf('## Address policy'), report.indexOf('## Load'));
    expect(section).toContain('| Address | named, min | redirect, max |');
    expect(section).toContain('| 127.0.0.1 | 422 | NOT: 200 |');
    expect(section).toContain('| \\[::1\\] | 422 |  |');
    expect(section).toContain('| 127.0.0.1 | redirect, max | 200 | NO | 1 |');
  });

  it('puts rows with the same figures in one table, one table per kind', () => {
    const section = report.slice(report.indexOf('## Load'), report.indexOf('## zz-new-suite'));
    expect(section).toContain(
      '| Fault | Target | Outcome | As required | req/s | p50 ms |\n|---|---|---|---|---|---|\n' +
        '| concurrency 1 | Extract Markdown | 50 answered | yes | 8.3 | 110 |\n' +
        '| concurrency 2 | Extract Markdown | 90 answered | yes | 15 | 120 |\n\n' +
        '| Fault | Target | Outcome | As required | process MB |',
    );
  });

  it('renders a suite it does not know with the generic table', () => {
    const section = report.slice(report.indexOf('## zz-new-suite'));
    expect(section).toContain('Run: commit `0000001`');
    expect(section).toContain('| something odd | somewhere | 422 access to internal resources is not allowed | yes |');
  });

  it('lists every figure in one column when rows have too many kinds of them to tabulate', () => {
    const varied: ReliabilityRecord = {
      suite: 'varied',
      run: run('1111111'),
      rows: Array.from({ length: 8 }, (_, index) => row(`fault ${index}`, 'x', true, { [`figure ${index}`]: index })),
    };
    const section = renderReliabilityReport([varied]).split('## varied')[1]!;
    expect(section).toContain('| Fault | Target | Outcome | As required | Figures |');
    expect(section).toContain('| fault 3 | x | 422 access to internal resources is not allowed | yes | figure 3 3 |');
  });
});

describe('cell', () => {
  it('keeps hostile text inside its cell: no column break, line break, link, tag or endless text', () => {
    expect(cell('a | b\nc')).toBe('a \\| b c');
    expect(cell('[x](javascript:alert(1)) <script>`*_')).toBe('\\[x\\](javascript:alert(1)) &lt;script&gt;\\`\\*\\_');
    expect(cell('x'.repeat(1_000))).toBe(`${'x'.repeat(200)}…`);
    expect(cell(undefined)).toBe('');
  });
});

describe('readRecords', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'reliability-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every record in the directory, by file name, and none from a directory not there', () => {
    writeFileSync(path.join(dir, 'load.json'), JSON.stringify(load));
    writeFileSync(path.join(dir, 'fuzz-unit.json'), JSON.stringify(fuzz));
    writeFileSync(path.join(dir, 'notes.txt'), 'not a record');
    expect(readRecords(dir).map((record) => record.suite)).toEqual(['fuzz-unit', 'load']);
    expect(readRecords(path.join(dir, 'absent'))).toEqual([]);
  });

  it('stops at a file that is not a record, naming it', () => {
    writeFileSync(
      path.join(dir, 'broken.json'),
      JSON.stringify({ suite: 'broken', run: run('x'), rows: [{ fault: 1 }] }),
    );
    expect(() => readRecords(dir)).toThrow(`${path.join(dir, 'broken.json')} is not a reliability record`);
  });
});
