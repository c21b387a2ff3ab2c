/**
 * The node's logger: pino, writing one line per event to stdout. `json` lines carry `level` (as a
 * name), `time`, `module`, `msg` and the event's fields; `plain` renders the same record as one
 * readable line: `<time> <LVL> [module] msg key=value ...`.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { type LogFn, type Logger, type LogLevel, mergeFields } from '../util/logger.ts';

export type LogFormat = 'plain' | 'json';

export interface LoggingOptions {
  level: LogLevel;
  format: LogFormat;
  /** Defaults to stdout. */
  destination?: NodeJS.WritableStream;
}

const SHORT: Record<string, string> = {
  trace: 'TRC',
  debug: 'DBG',
  info: 'INF',
  warn: 'WRN',
  error: 'ERR',
  fatal: 'FTL',
};
const RESERVED = new Set(['level', 'time', 'msg', 'module']);

export function createLogger(opts: LoggingOptions): Logger {
  const out = opts.destination ?? process.stdout;
  const stream = opts.format === 'json' ? out : plainStream(out);
  const root = pino(
    {
      level: opts.level,
      base: undefined,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // pino writes synchronously to a plain Writable, so no line is lost when the process exits.
    stream as pino.DestinationStream,
  );
  return withBindings(root, {});
}

/**
 * A logger over `root` whose events carry `bindings`. pino's own child loggers write the parent's
 * bindings, then the child's, then the event's, and repeat a key given twice
 * (`"module":"sc","module":"memiavl"`); so the bindings are kept here and merged into each event by
 * the one rule of `mergeFields`, and pino only ever sees one flat object.
 */
function withBindings(root: pino.Logger, bindings: Record<string, unknown>): Logger {
  const at =
    (level: LogLevel): LogFn =>
    (a: string | Record<string, unknown>, b?: string) => {
      if (!root.isLevelEnabled(level)) return;
      const [fields, msg] = typeof a === 'string' ? [{}, a] : [a, b];
      root[level](mergeFields(bindings, fields), msg);
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => withBindings(root, mergeFields(bindings, more)),
  };
}

function plainStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line) out.write(formatPlain(JSON.parse(line)) + '\n');
      }
      done();
    },
  });
}

export function formatPlain(rec: Record<string, unknown>): string {
  const parts = [String(rec.time), SHORT[String(rec.level)] ?? String(rec.level).toUpperCase()];
  if (rec.module) parts.push(`[${rec.module}]`);
  parts.push(String(rec.msg ?? ''));
  for (const [k, v] of Object.entries(rec)) {
    if (RESERVED.has(k)) continue;
    const text = typeof v === 'string' ? (/[\s"=]/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v);
    parts.push(`${k}=${text}`);
  }
  return parts.join(' ');
}
