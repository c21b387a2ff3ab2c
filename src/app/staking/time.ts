/**
 * Block times as staking keeps them: RFC 3339 with nanoseconds in records (the REST shape), and
 * nanoseconds since the epoch to compare and order them.
 */
export interface BlockTime {
  seconds: number;
  nanos: number;
}

/** The zero time of a protobuf Timestamp field left unset, as the SDK renders it. */
export const ZERO_TIME = '1970-01-01T00:00:00Z';

export const timeNs = (t: BlockTime): bigint => BigInt(t.seconds) * 1_000_000_000n + BigInt(t.nanos);

export function nsTime(ns: bigint): BlockTime {
  return { seconds: Number(ns / 1_000_000_000n), nanos: Number(ns % 1_000_000_000n) };
}

/** RFC 3339 with the fraction trimmed of trailing zeros, as Go's time.RFC3339Nano writes it. */
export function formatTime(ns: bigint): string {
  const t = nsTime(ns);
  const base = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  const frac = t.nanos === 0 ? '' : `.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${base}${frac}Z`;
}

export function parseTime(text: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!m) throw new RangeError(`time ${JSON.stringify(text)} is not RFC 3339 UTC`);
  const ms = Date.parse(`${m[1]}Z`);
  return BigInt(ms / 1000) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
}

/** "1814400s" (a protobuf Duration's JSON) → nanoseconds. */
export function parseDuration(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new RangeError(`duration ${JSON.stringify(text)} is not "<seconds>s"`);
  return BigInt(m[1]) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
}
