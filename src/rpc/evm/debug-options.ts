/**
 * geth's TraceConfig (the options of debug_traceTransaction, debug_traceBlockBy*) and TraceCallConfig
 * (debug_traceCall: the same plus state and block overrides). Members geth knows but that change
 * nothing here (`reexec`: this node replays from the State Store, not by re-executing older blocks;
 * `debug`) are accepted; unknown members are ignored, as Go's JSON decoding does. A member with the
 * wrong type or value is refused (-32602) with the field named, in encoding/json's words where geth
 * would use them.
 */
import { expectObject, inField } from '../codecs/call.ts';
import { CodecError } from '../codecs/errors.ts';
import { jsonKind } from '../codecs/hex.ts';
import {
  type AccountOverride,
  type BlockOverrides,
  parseBlockOverrides,
  parseStateOverrides,
} from '../codecs/overrides.ts';
import type { TraceConfig } from '../../execution/tracing/index.ts';

/** The decoded options: the tracer fields go to execution/tracing's createTracer unchanged. */
export interface TraceOptions extends TraceConfig {
  /** the `timeout` option in ms (capped by `[evm] trace_timeout`, see debug.ts) */
  timeoutMs?: number;
}

export interface TraceCallOptions extends TraceOptions {
  stateOverrides?: AccountOverride[];
  blockOverrides?: BlockOverrides;
}

const BOOLS = ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData'] as const;

function goTypeError(v: unknown, field: string, goType: string): CodecError {
  return new CodecError(
    `json: cannot unmarshal ${jsonKind(v)} into Go struct field TraceConfig.${field} of type ${goType}`,
  );
}

export function parseTraceOptions(v: unknown, what = 'tracers.TraceConfig'): TraceOptions {
  const o = expectObject(v, what);
  const out: TraceOptions = {};
  const present = (k: string) => o[k] !== undefined && o[k] !== null;
  if (present('tracer')) {
    if (typeof o.tracer !== 'string') throw goTypeError(o.tracer, 'tracer', '*string');
    out.tracer = o.tracer;
  }
  if (present('tracerConfig')) {
    const c = o.tracerConfig;
    if (typeof c !== 'object' || Array.isArray(c)) {
      throw new CodecError(
        `tracerConfig: want a JSON object with the tracer's options (such as {"onlyTopCall": true}), got ${jsonKind(c)}`,
      );
    }
    out.tracerConfig = c as Record<string, unknown>;
  }
  for (const k of BOOLS) {
    if (!present(k)) continue;
    if (typeof o[k] !== 'boolean') throw goTypeError(o[k], k, 'bool');
    out[k] = o[k];
  }
  if (present('limit')) {
    const l = o.limit;
    if (typeof l !== 'number' || !Number.isInteger(l)) throw goTypeError(l, 'limit', 'int');
    if (l < 0) throw new CodecError(`limit: must not be negative, got ${l}`);
    out.limit = l;
  }
  if (present('timeout')) {
    const t = o.timeout;
    if (typeof t !== 'string') throw goTypeError(t, 'timeout', '*string');
    const ms = parseGoDuration(t);
    if (ms === undefined)
      throw new CodecError(`timeout: time: invalid duration "${t}" (want e.g. "5s", "300ms", "1m30s")`);
    if (ms <= 0) throw new CodecError(`timeout: must be positive, got "${t}"`);
    out.timeoutMs = ms;
  }
  if (present('reexec')) {
    const r = o.reexec;
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) throw goTypeError(r, 'reexec', 'uint64');
  }
  return out;
}

export function parseTraceCallOptions(v: unknown): TraceCallOptions {
  const out: TraceCallOptions = parseTraceOptions(v, 'tracers.TraceCallConfig');
  const o = v as Record<string, unknown>;
  if (o.stateOverrides !== undefined && o.stateOverrides !== null)
    out.stateOverrides = inField('stateOverrides', () => parseStateOverrides(o.stateOverrides));
  if (o.blockOverrides !== undefined && o.blockOverrides !== null)
    out.blockOverrides = inField('blockOverrides', () => parseBlockOverrides(o.blockOverrides));
  if (o.txIndex !== undefined && o.txIndex !== null) {
    // geth would run the call after the block's first txIndex txs; tracing it on the state after
    // the whole block instead would answer a different question
    throw new CodecError('txIndex: tracing a call at a position inside a block is not supported');
  }
  return out;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const TERM = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** Go's time.ParseDuration, in milliseconds ("5s", "300ms", "1m30s", "1.5h", "0"); undefined if malformed. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] === '-' ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let ms = 0;
  while (rest.length > 0) {
    const m = TERM.exec(rest);
    if (!m) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]];
    rest = rest.slice(m[0].length);
  }
  return sign * ms;
}

/** Go's time.Duration.String() of whole or fractional milliseconds, as geth prints a timeout. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return (h ? `${h}h${m}m` : m ? `${m}m` : '') + `${s}s`;
}
