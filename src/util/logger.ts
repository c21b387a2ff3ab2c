/**
 * The logging interface every module receives. It is pino's calling convention (fields first, message
 * second); the node's logger (node/logging.ts) implements it over pino, while modules and unit tests
 * stay free of pino itself.
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
  /** A logger whose lines carry these fields, e.g. `{ module: 'ss' }`, merged as `mergeFields` says. */
  child(bindings: Record<string, unknown>): Logger;
}

/** Keys every line has of its own (the JSON format writes them; plain renders them in front). */
const LINE_KEYS = new Set(['level', 'time', 'msg']);

/**
 * The fields of a child logger or of one event over those of its parent, so that a line names each
 * key once (a repeated key in JSON is read differently by different parsers: most keep the last).
 * `module` is a dotted path: a child's (or an event's) module is appended to its parent's, so the
 * State Commit's memiavl logs as `sc.memiavl`. Any other key given again replaces the outer value (the
 * innermost wins). A field named like a key the line has of its own (`level`, `time`, `msg`) is
 * written as `field_<name>`.
 */
export function mergeFields(
  outer: Record<string, unknown>,
  inner: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...outer };
  for (const [k, v] of Object.entries(inner)) {
    if (k === 'module' && typeof outer.module === 'string' && typeof v === 'string')
      out.module = `${outer.module}.${v}`;
    else out[LINE_KEYS.has(k) ? `field_${k}` : k] = v;
  }
  return out;
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
      records.push({ level, msg, fields: mergeFields(bindings, fields) });
    };
  return {
    records,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => memoryLogger(records, mergeFields(bindings, more)),
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
