/**
 * Field kinds of the configuration schema. Each kind knows how to parse a raw TOML/env/flag value
 * (throwing `FieldError` with what is wrong and the expected form) and how to render its value back to
 * TOML, so defaults, validation, rendering and overrides all come from one declaration.
 */
export class FieldError extends Error {
  readonly expected: string;
  constructor(problem: string, expected: string) {
    super(problem);
    this.expected = expected;
  }
}

export interface Field<T> {
  readonly default: T;
  readonly doc: string;
  /** Human description of the accepted form, used in error messages. */
  readonly expected: string;
  parse(raw: unknown, fromText: boolean): T;
  render(value: T): string;
}

const describe = (raw: unknown) => (typeof raw === 'string' ? JSON.stringify(raw) : String(raw));
const tomlString = (s: string) => JSON.stringify(s);

export function str(
  def: string,
  doc: string,
  check?: (s: string) => string | undefined,
  expected = 'a string',
): Field<string> {
  return {
    default: def,
    doc,
    expected,
    parse(raw) {
      if (typeof raw !== 'string') throw new FieldError(`${describe(raw)} is not a string`, expected);
      const problem = check?.(raw);
      if (problem) throw new FieldError(problem, expected);
      return raw;
    },
    render: tomlString,
  };
}

export function bool(def: boolean, doc: string): Field<boolean> {
  const expected = 'true or false';
  return {
    default: def,
    doc,
    expected,
    parse(raw, fromText) {
      if (typeof raw === 'boolean') return raw;
      if (fromText && (raw === 'true' || raw === 'false')) return raw === 'true';
      throw new FieldError(`${describe(raw)} is not a boolean`, expected);
    },
    render: String,
  };
}

export function int(def: number, doc: string, min = 0, max = Number.MAX_SAFE_INTEGER): Field<number> {
  const expected =
    max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  return {
    default: def,
    doc,
    expected,
    parse(raw, fromText) {
      let n: number;
      if (typeof raw === 'number' || typeof raw === 'bigint') n = Number(raw);
      else if (fromText && typeof raw === 'string' && /^-?\d+$/.test(raw.trim())) n = Number(raw.trim());
      else throw new FieldError(`${describe(raw)} is not an integer`, expected);
      if (!Number.isSafeInteger(n)) throw new FieldError(`${describe(raw)} is not an integer`, expected);
      if (n < min || n > max) throw new FieldError(`${n} is out of range`, expected);
      return n;
    },
    render: String,
  };
}

export function oneOf<const V extends string>(values: readonly V[], def: V, doc: string): Field<V> {
  const expected = `one of ${values.map((v) => `"${v}"`).join(', ')}`;
  return {
    default: def,
    doc,
    expected,
    parse(raw) {
      if (typeof raw !== 'string' || !(values as readonly string[]).includes(raw)) {
        throw new FieldError(`${describe(raw)} is not allowed`, expected);
      }
      return raw as V;
    },
    render: tomlString,
  };
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION_RE = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/;

/** Go-style duration strings ("400ms", "1h30m", "0s"): the form CometBFT and Cosmos configs use. */
export function parseDuration(text: string): number | undefined {
  let rest = text.trim();
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let ms = 0;
  while (rest.length > 0) {
    const m = DURATION_RE.exec(rest);
    if (!m) return undefined;
    ms += Number(m[1]) * DURATION_UNITS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return ms;
}

/** Renders milliseconds back to the shortest Go-style duration. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** A duration, held as milliseconds; `minMs` bounds it below (a deadline of 0 would fire at once). */
export function duration(def: string, doc: string, minMs = 0): Field<number> {
  const expected =
    minMs > 0
      ? `a duration of at least ${formatDuration(minMs)} such as "400ms", "5s", "168h"`
      : 'a duration such as "400ms", "5s", "168h"';
  const parsedDefault = parseDuration(def);
  if (parsedDefault === undefined) throw new Error(`bad default duration ${def}`);
  return {
    default: parsedDefault,
    doc,
    expected,
    parse(raw) {
      const ms = typeof raw === 'string' ? parseDuration(raw) : undefined;
      if (ms === undefined) throw new FieldError(`${describe(raw)} is not a duration`, expected);
      if (ms < minMs) throw new FieldError(`${describe(raw)} is too short`, expected);
      return ms;
    },
    render: (ms) => tomlString(formatDuration(ms)),
  };
}

export function strList(def: readonly string[], doc: string): Field<string[]> {
  const expected = 'an array of strings (or a comma-separated string)';
  return {
    default: [...def],
    doc,
    expected,
    parse(raw, fromText) {
      if (fromText && typeof raw === 'string') {
        const t = raw.trim();
        if (t.startsWith('[')) {
          try {
            return this.parse(JSON.parse(t), false);
          } catch {
            throw new FieldError(`${describe(raw)} is not a list`, expected);
          }
        }
        return t === '' ? [] : t.split(',').map((s) => s.trim());
      }
      if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return [...raw];
      throw new FieldError(`${describe(raw)} is not an array of strings`, expected);
    },
    render: (v) => `[${v.map(tomlString).join(', ')}]`,
  };
}

/** A listen address: `tcp://host:port`, `host:port` or `:port` (all interfaces). */
export function listenAddress(def: string, doc: string, scheme: boolean): Field<string> {
  const expected = scheme ? '"tcp://<host>:<port>"' : '"<host>:<port>" or ":<port>"';
  return str(
    def,
    doc,
    (s) => (parseListenAddress(s) ? undefined : `${JSON.stringify(s)} is not a listen address`),
    expected,
  );
}

export function parseListenAddress(s: string): { host: string; port: number } | undefined {
  const m = /^(?:tcp:\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(s.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  const host = m[1] === '' ? '0.0.0.0' : m[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

export function port(def: number, doc: string): Field<number> {
  return int(def, doc, 0, 65535);
}
