/**
 * The logging interface every module receives. It is pino's calling convention (fields first, message
 * second) so the node's pino logger satisfies it directly, while modules and unit tests stay free of
 * pino itself.
 */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

export interface LogFn {
  (msg: string): void;
  (fields: Record<string, unknown>, msg: string): void;
}

export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger whose lines carry these fields, e.g. `{ module: 'ss' }`. */
  child(bindings: Record<string, unknown>): Logger;
}

export interface LogRecord {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps records in memory: for unit tests that assert on log events. */
export function memoryLogger(
  records: LogRecord[] = [],
  bindings: Record<string, unknown> = {},
): Logger & {
  records: LogRecord[];
} {
  const at =
    (level: LogLevel): LogFn =>
    (a: string | Record<string, unknown>, b?: string) => {
      const [fields, msg] = typeof a === 'string' ? [{}, a] : [a, b ?? ''];
      records.push({ level, msg, fields: { ...bindings, ...fields } });
    };
  return {
    records,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => memoryLogger(records, { ...bindings, ...more }),
  };
}

const noop: LogFn = () => {};
export const silentLogger: Logger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};
