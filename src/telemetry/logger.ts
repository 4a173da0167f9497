import pino from 'pino';
import { SdkComponent, type Logger as TemporalLogger, type LogLevel, type LogMetadata } from '@temporalio/common';
import type { LogFormat } from '../config/settings';
import { organizationOf } from '../events/streams';
import { prettyLines, writesPretty } from './logFormat';

export type Logger = pino.Logger;

/**
 * JSON lines unless `format` asks for readable ones here. A launcher's children are told `json`
 * and their lines are made readable once, in the launcher, so its log files keep JSON.
 */
export function createLogger(level: string, name: string, format: LogFormat = 'json'): Logger {
  const options = { level, name, base: { pid: process.pid } };
  if (!writesPretty(format, process.stdout.isTTY)) return pino(options);
  const pretty = prettyLines(process.stdout.isTTY === true);
  return pino(options, { write: (line: string) => process.stdout.write(`${pretty(name, line.trimEnd())}\n`) });
}

/** What names a run on a log line: its organization (from the workflow id), workflow id and run id. */
export interface RunFields {
  organization?: string;
  workflowId: string;
  runId?: string;
}

export function runFields(workflowId: string, runId?: string): RunFields {
  return { organization: organizationOf(workflowId), workflowId, ...(runId ? { runId } : {}) };
}

/**
 * Temporal's metadata, named as the API's lines name the same things: a workflow's lines carry
 * `runId` and an activity's `workflowRunId`, so both get `runId`, and every line of a run its
 * organization. The task token is dropped: whoever holds it can complete the activity.
 */
function temporalFields(meta: LogMetadata): Record<string, unknown> {
  const { workflowRunId, error, ...fields } = meta;
  delete fields.taskToken;
  const workflowId = typeof fields.workflowId === 'string' ? fields.workflowId : undefined;
  const runId =
    typeof fields.runId === 'string' ? fields.runId : typeof workflowRunId === 'string' ? workflowRunId : undefined;
  return {
    ...fields,
    ...(workflowId ? runFields(workflowId, runId) : {}),
    // pino serializes errors (message, stack) only under `err`.
    ...(error instanceof Error ? { err: error } : error === undefined ? {} : { error }),
  };
}

/** The SDK's warnings that our role split makes true of every queue at every start. */
const EXPECTED_WARNINGS = new Set([
  'No workflows registered, not polling for workflow tasks',
  'No activities registered, not polling for activity tasks',
]);

/**
 * The SDK's own info lines about its workers ("Worker state changed", "No Nexus services
 * registered") come once per task queue and state, a dozen at each start and stop, and drown the
 * lines a person looks for; they go to debug. So do its two warnings that a worker has no
 * workflows or no activities: each role's process runs only one kind by design (src/workers),
 * so they are true of every queue at every start and warn of nothing. Its other warnings and
 * errors, and the lines of workflow code and activities, stay as they are.
 */
function chatter(level: LogLevel, message: string, meta: LogMetadata | undefined): boolean {
  if (meta?.sdkComponent !== SdkComponent.worker) return false;
  return level === 'INFO' || (level === 'WARN' && EXPECTED_WARNINGS.has(message));
}

/**
 * Temporal's SDK logs through our pino logger, so one process writes one log format: the
 * worker's own lines, workflow code's (`log` of @temporalio/workflow) and activities'
 * (`Context.current().log`), each with the run it belongs to.
 */
export function temporalLogger(logger: Logger): TemporalLogger {
  const levels: Record<LogLevel, pino.Level> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void =>
    logger[chatter(level, message, meta) ? 'debug' : levels[level]](meta ? temporalFields(meta) : {}, message);
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
