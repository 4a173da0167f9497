import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './localStack';
import { RELIABILITY_DIR, type ReliabilityRecord, type ReliabilityRow } from './reliabilityRecord';

/**
 * `npm run reliability:report`: docs/reliability.md from the records the suites left under
 * data/reliability/ (test/support/reliabilityRecord.ts), so that every figure in it names the
 * run it came from. The suites the issue asks for have a section each, "not run" when no record
 * of theirs is there; any other record gets a section after them. The same records give the
 * same document, byte for byte: nothing in it depends on when or where it is generated.
 */

export const REPORT_FILE = path.join(projectRoot(), 'docs', 'reliability.md');

interface KnownSuite {
  suite: string;
  title: string;
  /** What the suite does and how to run it, in Markdown. */
  about: string;
  /** A table laid out for the suite's rows, instead of the generic one. */
  table?: (rows: ReliabilityRow[]) => string[];
}

/** The suites of issue #25, in the order the report shows them. */
const KNOWN: KnownSuite[] = [
  {
    suite: 'chaos',
    title: 'Process kills',
    about:
      'Each process kind killed with `kill -9` during each operation; what the client saw, every event once, ' +
      'nothing charged twice. `npm run test:chaos`.',
  },
  {
    suite: 'chaos-short',
    title: 'Process kills, short version',
    about: 'A few representative cells of the kill matrix, run by `npm test` in CI.',
  },
  {
    suite: 'browser-faults',
    title: 'Browser faults',
    about:
      'Chromium crashing, hanging or running out of memory mid-step during Automate. ' +
      '`test/e2e/browserFaults.test.ts`.',
  },
  {
    suite: 'upstream-faults',
    title: 'Model and search engine faults',
    about:
      'The model endpoint and the search engine failing (errors, timeouts, garbage, cut streams) during ' +
      'Research and Automate. `test/e2e/upstreamFaults.test.ts`.',
  },
  {
    suite: 'fuzz-unit',
    title: 'Request fuzzing, body readers',
    about:
      'Every request reader against generated bodies and JSON Schemas (fast-check, fixed seed; `FUZZ_RUNS` ' +
      'for a longer run): read, or refused with a listed 400. `test/unit/requestFuzz.test.ts`.',
  },
  {
    suite: 'fuzz-e2e',
    title: 'Request fuzzing, over HTTP',
    about:
      'Every endpoint of the running stack against malformed bodies, content types, encodings, ids and ' +
      '`Last-Event-ID`s (fast-check, fixed seed): only listed statuses and messages, and an ordinary ' +
      'request still served after. `test/e2e/requestFuzz.test.ts`.',
  },
  {
    suite: 'hostile-pages',
    title: 'Hostile pages',
    about:
      'Pages built to make reading them cost without end: the answer, its time, the slowest ordinary ' +
      "request served meanwhile and the page workers' peak memory. `test/e2e/hostilePages.test.ts`.",
  },
  {
    suite: 'bounded-cost',
    title: 'Hostile inputs to Automate',
    about:
      "One hostile input costs its own run, not everyone's: `data` nested thousands deep, a task on a page " +
      'of giant attributes while another organization renders, a hostile form asked about. ' +
      '`test/e2e/boundedCost.test.ts`.',
  },
  {
    suite: 'address-policy',
    title: 'Address policy',
    about:
      'Every spelling of an internal address (rows) on every path a request can take to it (columns), with ' +
      'a TCP and UDP canary on loopback counting what arrived. A cell shows the answer; a blank cell was ' +
      'not tried. `test/e2e/addressPolicy.test.ts`.',
    table: addressTable,
  },
  {
    suite: 'load',
    title: 'Load',
    about:
      'Extract Markdown at rising concurrency to the knee, the service over the bare read, Research ' +
      'streams held open, and the peak memory of every process kind. `npm run bench:load` ' +
      '(`-- --short` for the smoke run).',
  },
];

/** A generic table's figures become columns while its rows share so few kinds of them. */
const MAX_TABLES = 6;
const MAX_CELL = 200;

/**
 * A value as a table cell: a record's text comes from pages, requests and models, so nothing in
 * it may end the cell, open a link or tag, or run on.
 */
export function cell(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  const short = text.length > MAX_CELL ? `${text.slice(0, MAX_CELL)}…` : text;
  return short
    .replace(/\s+/g, ' ')
    .replace(/[\\`*_[\]|]/g, '\\$&')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

const line = (cells: unknown[]) => `| ${cells.map(cell).join(' | ')} |`;
const header = (names: string[]) => [line(names), `|${names.map(() => '---').join('|')}|`];
const verdict = (row: ReliabilityRow) => (row.ok ? 'yes' : 'NO');

/** Rows whose figures have the same names, one table each, in the order they first appear. */
function genericTable(rows: ReliabilityRow[]): string[] {
  const groups = new Map<string, ReliabilityRow[]>();
  for (const row of rows) {
    const key = JSON.stringify(Object.keys(row.figures ?? {}));
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  if (groups.size > MAX_TABLES) {
    return [
      ...header(['Fault', 'Target', 'Outcome', 'As required', 'Figures']),
      ...rows.map((row) => {
        const figures = Object.entries(row.figures ?? {}).map(([name, value]) => `${name} ${value}`);
        return line([row.fault, row.target, row.outcome, verdict(row), figures.join('; ')]);
      }),
    ];
  }
  return [...groups].flatMap(([key, group], index) => {
    const names = JSON.parse(key) as string[];
    return [
      ...(index > 0 ? [''] : []),
      ...header(['Fault', 'Target', 'Outcome', 'As required', ...names]),
      ...group.map((row) =>
        line([row.fault, row.target, row.outcome, verdict(row), ...names.map((n) => row.figures?.[n])]),
      ),
    ];
  });
}

/** Addresses down, paths across; the rows not as required listed in full below. */
function addressTable(rows: ReliabilityRow[]): string[] {
  const addresses = [...new Set(rows.map((row) => row.fault))];
  const paths = [...new Set(rows.map((row) => row.target))];
  const byCell = new Map(rows.map((row) => [JSON.stringify([row.fault, row.target]), row]));
  const failed = rows.filter((row) => !row.ok);
  return [
    ...header(['Address', ...paths]),
    ...addresses.map((address) =>
      line([
        address,
        ...paths.map((target) => {
          const row = byCell.get(JSON.stringify([address, target]));
          if (!row) return '';
          const answer = /^\d{3}\b/.exec(row.outcome)?.[0] ?? 'refused';
          return row.ok ? answer : `NOT: ${row.outcome}`;
        }),
      ]),
    ),
    ...(failed.length > 0 ? ['', 'Not as required:', '', ...genericTable(failed)] : []),
  ];
}

function sum(rows: ReliabilityRow[], figure: string): number | undefined {
  const values = rows.map((row) => row.figures?.[figure]).filter((value) => typeof value === 'number');
  return values.length > 0 ? values.reduce((total, value) => total + value, 0) : undefined;
}

function counts(rows: ReliabilityRow[]): { tried: number; ok: number; not: number } {
  const ok = rows.filter((row) => row.ok).length;
  return { tried: rows.length, ok, not: rows.length - ok };
}

function summaryLine(rows: ReliabilityRow[]): string {
  const { tried, ok, not } = counts(rows);
  const inputs = sum(rows, 'tried');
  const canary = sum(rows, 'canary hits');
  return (
    `**${tried} tried, ${ok} as required, ${not} not.**` +
    (inputs === undefined ? '' : ` ${inputs} generated inputs in all.`) +
    (canary === undefined ? '' : ` ${canary} arrivals at the canary.`)
  );
}

const when = (startedAt: string) => `${startedAt.slice(0, 10)} ${startedAt.slice(11, 16)} UTC`;

/** The run's topology, or the ones its rows name when a suite ran on more than one (the chaos matrix). */
function topologies({ run, rows }: ReliabilityRecord): string {
  const named = [...new Set(rows.map((row) => row.figures?.topology).filter((t) => typeof t === 'string'))];
  return named.length > 1 ? `${named.map(cell).join(' and ')} topologies` : `${cell(run.topology)} topology`;
}

function runLine(record: ReliabilityRecord): string {
  const { run } = record;
  return (
    `Run: commit \`${cell(run.commit)}\`, started ${cell(when(run.startedAt))}, ${topologies(record)}, ` +
    `${run.cores} cores, load average ${run.loadAverage} at the start.`
  );
}

function section(title: string, about: string, record: ReliabilityRecord | undefined, table = genericTable): string[] {
  const heading = [`## ${title}`, '', about, ''];
  if (!record) return [...heading, '_Not run: no record of this suite in the last runs._', ''];
  if (record.rows.length === 0) return [...heading, runLine(record), '', '_The run recorded no rows._', ''];
  return [...heading, runLine(record), '', summaryLine(record.rows), '', ...table(record.rows), ''];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The document for these records, one per suite. */
export function renderReliabilityReport(records: ReliabilityRecord[]): string {
  const bySuite = new Map(records.map((record) => [record.suite, record]));
  const others = records
    .map((record) => record.suite)
    .filter((suite) => !KNOWN.some((known) => known.suite === suite))
    .sort(byName);
  const all = [...KNOWN.map((known) => known.suite), ...others];
  const titleOf = (suite: string) => KNOWN.find((known) => known.suite === suite)?.title ?? suite;
  const everyRow = records.flatMap((record) => record.rows);
  const failing = all.filter((suite) => counts(bySuite.get(suite)?.rows ?? []).not > 0);
  const notRun = KNOWN.filter((known) => !bySuite.has(known.suite)).map((known) => known.title);
  const lines = [
    '# Reliability: what the last runs of the fault, fuzz, address and load suites saw',
    '',
    '<!-- Generated by `npm run reliability:report` from data/reliability/*.json; edit',
    '     test/support/reliabilityReport.ts, not this file. -->',
    '',
    'Each suite records what it did and what came of it as it runs (`test/support/reliabilityRecord.ts`);',
    '`npm run reliability:report` turns the last record of each into this page. Every section names the',
    'run its figures come from. A row is one fault injected, input class tried or load level held;',
    '"as required" means the outcome is the one the suite demands of the service; a measure with no bound',
    'of its own (a knee, a peak of memory) counts as required.',
    '',
    '## Summary',
    '',
    summaryLine(everyRow),
    failing.length > 0 ? `Not as required in: ${failing.map(titleOf).join('; ')}.` : 'Every row as required.',
    notRun.length > 0 ? `Not run: ${notRun.join('; ')}.` : 'Every suite ran.',
    '',
    ...header(['Suite', 'Run', 'Tried', 'As required', 'Not']),
    ...all.map((suite) => {
      const record = bySuite.get(suite);
      if (!record) return line([titleOf(suite), 'not run', '', '', '']);
      const { tried, ok, not } = counts(record.rows);
      return line([titleOf(suite), `${record.run.commit}, ${when(record.run.startedAt)}`, tried, ok, not]);
    }),
    '',
    ...KNOWN.flatMap((known) => section(known.title, known.about, bySuite.get(known.suite), known.table)),
    ...others.flatMap((suite) => section(suite, 'A suite this report has no description of.', bySuite.get(suite))),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

function isRow(value: unknown): value is ReliabilityRow {
  const row = value as ReliabilityRow;
  return (
    typeof row === 'object' &&
    row !== null &&
    typeof row.fault === 'string' &&
    typeof row.target === 'string' &&
    typeof row.outcome === 'string' &&
    typeof row.ok === 'boolean' &&
    (row.figures === undefined || (typeof row.figures === 'object' && row.figures !== null))
  );
}

/** The records in `dir`, by file name; one that is not a record stops the report, naming its file. */
export function readRecords(dir: string): ReliabilityRecord[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort(byName)
    .map((file) => {
      const record = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ReliabilityRecord;
      const run = record?.run;
      if (
        typeof record?.suite !== 'string' ||
        typeof run?.commit !== 'string' ||
        typeof run.startedAt !== 'string' ||
        typeof run.topology !== 'string' ||
        typeof run.cores !== 'number' ||
        typeof run.loadAverage !== 'number' ||
        !Array.isArray(record.rows) ||
        !record.rows.every(isRow)
      )
        throw new Error(`${path.join(dir, file)} is not a reliability record`);
      return record;
    });
}

if (require.main === module) {
  const records = readRecords(RELIABILITY_DIR);
  writeFileSync(REPORT_FILE, renderReliabilityReport(records));
  console.log(
    `wrote ${path.relative(process.cwd(), REPORT_FILE)} from ${records.length} records: ` +
      records.map((record) => `${record.suite} (${record.run.commit}, ${record.run.startedAt})`).join(', '),
  );
}
