import pino from 'pino';
import type { Logger as TemporalLogger, LogLevel, LogMetadata } from '@temporalio/common';

export type Logger = pino.Logger;

export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, base: { pid: process.pid } });
}

/** Temporal's SDK logs through our pino logger, so one process writes one log format. */
export function temporalLogger(logger: Logger): TemporalLogger {
  const levels: Record<LogLevel, pino.Level> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void =>
    logger[levels[level]](meta ?? {}, message);
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}
