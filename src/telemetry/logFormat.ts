import { prettyFactory } from 'pino-pretty';
import type { LogFormat } from '../config/settings';

export function writesPretty(format: LogFormat, isTTY: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY === true);
}

/**
 * Whether a character moves a terminal's cursor, recolours it or reorders text (C0 and C1
 * controls, bidirectional marks). A logged URL or title comes from a page, and a page must not be
 * able to rewrite what a person reads on the terminal. Tabs stay; a stack keeps its line breaks,
 * as a trace on one line is unreadable.
 */
export function drivesTerminal(code: number, inStack = false): boolean {
  if (code === 0x09 || (inStack && code === 0x0a)) return false;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function escapeControls(text: string, inStack = false): string {
  let escaped = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    escaped += drivesTerminal(code, inStack) ? `\\u${code.toString(16).padStart(4, '0')}` : text[i];
  }
  return escaped;
}

/** Every string of a parsed line, escaped; linear in the line's size. */
function defang(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return escapeControls(value, key === 'stack');
  if (Array.isArray(value)) return value.map((item) => defang(item));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [escapeControls(name), defang(item, name)]));
  return value;
}

function parseObject(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const INFO = 30;

/**
 * One readable line per event: time, coloured level, the process's name, the message, then the
 * other fields on the same line. A line that is not pino's JSON (Temporal's, PostgreSQL's) is
 * shown the same way, as the process's info.
 */
export function prettyLines(colorize: boolean): (process: string, line: string) => string {
  const format = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  const asText = (process: string, line: string) =>
    format({ level: INFO, time: Date.now(), name: process, msg: escapeControls(line) }).trimEnd();
  return (process, line) => {
    const parsed = parseObject(line);
    if (!parsed) return asText(process, line);
    try {
      return format(defang({ time: Date.now(), ...parsed, name: process }) as Record<string, unknown>).trimEnd();
    } catch {
      // Nested deeper than the stack allows: a line the relay must not die of.
      return asText(process, line);
    }
  };
}

/** A child's line as JSON still, naming the process it came from, so a shipper can tell two workers apart. */
export function jsonLine(process: string, line: string): string {
  const parsed = parseObject(line);
  return parsed ? JSON.stringify({ ...parsed, process }) : `[${process}] ${line}`;
}

/** How a launcher writes its children's lines: readable on a terminal, JSON lines otherwise. */
export function childLineFormat(
  format: LogFormat,
  isTTY: boolean | undefined,
): (process: string, line: string) => string {
  return writesPretty(format, isTTY) ? prettyLines(isTTY === true) : jsonLine;
}
