/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: it rejects anything the
 * format does not allow (bad names, label syntax, escapes, values, a sample before its TYPE, a family
 * declared twice, samples of a family split apart, histogram buckets that are not cumulative).
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Values as Prometheus reads them (Go's ParseFloat: Inf and NaN in any case; prom-client writes `Nan`). */
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?|nan)$/i;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

function fail(line: number, msg: string): never {
  throw new Error(`metrics line ${line}: ${msg}`);
}

function parseValue(s: string, line: number): number {
  if (!VALUE.test(s)) fail(line, `bad value ${JSON.stringify(s)}`);
  if (/inf/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  return /nan/i.test(s) ? NaN : Number(s);
}

function parseLabels(s: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < s.length) {
    const eq = s.indexOf('=', i);
    if (eq < 0) fail(line, `label without value in {${s}}`);
    const name = s.slice(i, eq);
    if (!LABEL.test(name)) fail(line, `bad label name ${JSON.stringify(name)}`);
    if (name in labels) fail(line, `label ${name} repeated`);
    if (s[eq + 1] !== '"') fail(line, `label ${name} value is not quoted`);
    let v = '';
    let j = eq + 2;
    for (; j < s.length && s[j] !== '"'; j++) {
      if (s[j] === '\\') {
        const e = s[++j];
        if (e === 'n') v += '\n';
        else if (e === '\\' || e === '"') v += e;
        else fail(line, `bad escape \\${e}`);
      } else v += s[j];
    }
    if (j >= s.length) fail(line, `unterminated value of label ${name}`);
    labels[name] = v;
    i = j + 1;
    if (i < s.length) {
      if (s[i] !== ',') fail(line, `expected , after label ${name}`);
      i++;
    }
  }
  return labels;
}

/** The family a sample name belongs to (histograms expose _bucket, _sum and _count). */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  if (families.has(sample)) return families.get(sample);
  const m = /^(.*)_(bucket|sum|count)$/.exec(sample);
  const f = m ? families.get(m[1]) : undefined;
  return f && (f.type === 'histogram' || f.type === 'summary') ? f : undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current: Family | undefined;
  if (!text.endsWith('\n')) throw new Error('metrics text must end with a newline');
  text
    .slice(0, -1)
    .split('\n')
    .forEach((raw, idx) => {
      const line = idx + 1;
      if (raw.trim() === '') return;
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (meta) {
        const [, kind, name, rest] = meta;
        if (!NAME.test(name)) fail(line, `bad metric name ${name}`);
        let f = families.get(name);
        if (!f) {
          if (closed.has(name)) fail(line, `family ${name} declared twice`);
          f = { name, help: '', type: 'untyped', samples: [] };
          families.set(name, f);
        }
        if (current && current !== f) closed.add(current.name);
        current = f;
        if (kind === 'HELP') f.help = rest;
        else if (!TYPES.includes(rest)) fail(line, `bad type ${rest}`);
        else if (f.samples.length > 0) fail(line, `TYPE of ${name} after its samples`);
        else f.type = rest as Family['type'];
        return;
      }
      if (raw.startsWith('#')) return; // a comment
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(raw);
      if (!m) fail(line, `not a sample: ${raw}`);
      const [, name, labelText, value] = m;
      const f = familyOf(name, families);
      if (!f) fail(line, `sample ${name} has no TYPE/HELP before it`);
      if (f !== current) fail(line, `sample ${name} is separated from its family ${f.name}`);
      f.samples.push({ name, labels: parseLabels(labelText ?? '', line), value: parseValue(value, line) });
    });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, Sample[]>();
  for (const s of f.samples) {
    if (s.name !== `${f.name}_bucket`) continue;
    const { le, ...rest } = s.labels;
    if (le === undefined) throw new Error(`${f.name}: bucket without le`);
    const key = JSON.stringify(rest);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, buckets] of groups) {
    let prevLe = -Infinity;
    let prev = 0;
    for (const b of buckets) {
      const le = parseValue(b.labels.le, 0);
      if (le <= prevLe) throw new Error(`${f.name}${key}: le values not increasing`);
      if (b.value < prev) throw new Error(`${f.name}${key}: buckets not cumulative`);
      prevLe = le;
      prev = b.value;
    }
    if (prevLe !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    const count = f.samples.find((s) => s.name === `${f.name}_count` && JSON.stringify(s.labels) === key);
    if (!count || count.value !== prev)
      throw new Error(`${f.name}${key}: _count differs from the +Inf bucket`);
  }
}
