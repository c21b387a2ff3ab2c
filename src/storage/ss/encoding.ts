/**
 * The MVCC key and value layout of one State Store database.
 *
 *   data key   = 's' ‖ esc(store) ‖ 0x00 ‖ esc(key) ‖ 0x00 ‖ ~u64be(version)
 *   data value = 0x01 ‖ value    (a live value)   |   0x00   (a tombstone: deleted at this version)
 *   meta key   = 'm' ‖ name      (latest, earliest, prune target; u64be values)
 *
 * Keys may hold any byte, so a bare 0x00 separator would be ambiguous: key `a` at some version and key
 * `a\0…` would interleave, breaking both the one-seek `get` and ordered iteration. `esc` removes every
 * 0x00 from a key while preserving memcmp order: 0x00 → 0x01 0x01, 0x01 → 0x01 0x02, other bytes as
 * they are. An escaped key therefore never contains 0x00, and the separator sorts before any
 * continuation, so for keys k1 < k2 every encoded version of k1 sorts before every version of k2, and
 * within one key the bitwise-NOT version puts the newest first: "newest version ≤ v" is the first entry
 * at or after `prefix(k) ‖ 0x00 ‖ ~v`, and all of a key's versions lie below `prefix(k) ‖ 0x01`.
 */

const DATA = 0x73; // 's'
const META = 0x6d; // 'm'
export const VERSION_BYTES = 8;
const MAX_VERSION = Number.MAX_SAFE_INTEGER;

export const TOMBSTONE = Uint8Array.of(0);

/** Every data entry of a database, whatever its store: for whole-database scans (rollback). */
export const DATA_RANGE = { gte: Uint8Array.of(DATA), lt: Uint8Array.of(DATA + 1) };
const LIVE = 1;

export function escapedLength(key: Uint8Array): number {
  let n = key.length;
  for (let i = 0; i < key.length; i++) if (key[i] <= 1) n++;
  return n;
}

/** Writes esc(key) at `offset`; returns the offset after it. */
function writeEscaped(out: Uint8Array, offset: number, key: Uint8Array): number {
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (c <= 1) {
      out[offset++] = 1;
      out[offset++] = c + 1;
    } else out[offset++] = c;
  }
  return offset;
}

export function unescape(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i];
    if (c === 1) out[n++] = bytes[++i] - 1;
    else out[n++] = c;
  }
  return out.subarray(0, n);
}

/** 's' ‖ esc(store) ‖ 0x00: the prefix of every entry of one store. */
export function storePrefix(store: string): Uint8Array {
  const name = new TextEncoder().encode(store);
  const out = new Uint8Array(2 + escapedLength(name));
  out[0] = DATA;
  const end = writeEscaped(out, 1, name);
  out[end] = 0;
  return out;
}

/** The exclusive upper bound of a store's entries: its prefix with the final 0x00 raised to 0x01. */
export function storeEnd(prefix: Uint8Array): Uint8Array {
  const out = prefix.slice();
  out[out.length - 1] = 1;
  return out;
}

/** storePrefix ‖ esc(key): the start of a logical key's region (also the iterator's key bound). */
export function keyRegion(prefix: Uint8Array, key: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + escapedLength(key));
  out.set(prefix, 0);
  writeEscaped(out, prefix.length, key);
  return out;
}

/** region ‖ 0x00 ‖ ~u64be(version): one versioned entry of a key. */
export function versionedKey(region: Uint8Array, version: number): Uint8Array {
  const out = new Uint8Array(region.length + 1 + VERSION_BYTES);
  out.set(region, 0);
  out[region.length] = 0;
  writeInvertedVersion(out, region.length + 1, version);
  return out;
}

/** region ‖ 0x01: every version of the key sorts below it, every larger key above it. */
export function regionEnd(region: Uint8Array): Uint8Array {
  const out = new Uint8Array(region.length + 1);
  out.set(region, 0);
  out[region.length] = 1;
  return out;
}

function writeInvertedVersion(out: Uint8Array, offset: number, version: number): void {
  const hi = ~Math.floor(version / 0x1_0000_0000);
  const lo = ~(version >>> 0);
  out[offset] = hi >>> 24;
  out[offset + 1] = hi >>> 16;
  out[offset + 2] = hi >>> 8;
  out[offset + 3] = hi;
  out[offset + 4] = lo >>> 24;
  out[offset + 5] = lo >>> 16;
  out[offset + 6] = lo >>> 8;
  out[offset + 7] = lo;
}

/** prefix ‖ esc(key) ‖ 0x00 ‖ ~u64be(version) in one allocation: the write path's data key. */
export function dataKey(prefix: Uint8Array, key: Uint8Array, version: number): Uint8Array {
  const regionLength = prefix.length + escapedLength(key);
  const out = new Uint8Array(regionLength + 1 + VERSION_BYTES);
  out.set(prefix, 0);
  writeEscaped(out, prefix.length, key);
  writeInvertedVersion(out, regionLength + 1, version);
  return out;
}

/**
 * The seek of a point read, built with one escape pass: `gte` = prefix ‖ esc(key) ‖ 0x00 ‖ ~version
 * (the newest entry at or below `version` is the first one at or after it) and `lt` = prefix ‖
 * esc(key) ‖ 0x01 (past the key's oldest version).
 */
export function pointSeek(
  prefix: Uint8Array,
  key: Uint8Array,
  version: number,
): { gte: Uint8Array; lt: Uint8Array } {
  const regionLength = prefix.length + escapedLength(key);
  const gte = new Uint8Array(regionLength + 1 + VERSION_BYTES);
  gte.set(prefix, 0);
  writeEscaped(gte, prefix.length, key);
  writeInvertedVersion(gte, regionLength + 1, version);
  const lt = gte.slice(0, regionLength + 1);
  lt[regionLength] = 1;
  return { gte, lt };
}

/** The version of a data key (its last eight bytes, inverted). */
export function versionOf(dataKey: Uint8Array): number {
  const view = new DataView(
    dataKey.buffer,
    dataKey.byteOffset + dataKey.length - VERSION_BYTES,
    VERSION_BYTES,
  );
  return (~view.getUint32(0) >>> 0) * 0x1_0000_0000 + (~view.getUint32(4) >>> 0);
}

/** The region (store prefix ‖ esc(key)) of a data key: everything before the 0x00 ‖ version tail. */
export function regionOf(dataKey: Uint8Array): Uint8Array {
  return dataKey.subarray(0, dataKey.length - VERSION_BYTES - 1);
}

/** The logical key of a data key of the store with this prefix. */
export function logicalKeyOf(dataKey: Uint8Array, prefixLength: number): Uint8Array {
  return unescape(dataKey, prefixLength, dataKey.length - VERSION_BYTES - 1);
}

export function encodeValue(value: Uint8Array | null): Uint8Array {
  if (value === null) return TOMBSTONE;
  const out = new Uint8Array(value.length + 1);
  out[0] = LIVE;
  out.set(value, 1);
  return out;
}

/** The stored value, or null for a tombstone. */
export function decodeValue(stored: Uint8Array): Uint8Array | null {
  return stored[0] === LIVE ? stored.subarray(1) : null;
}

export function isTombstone(stored: Uint8Array): boolean {
  return stored[0] !== LIVE;
}

export function assertVersion(version: number, what = 'version'): void {
  if (!Number.isSafeInteger(version) || version < 0 || version > MAX_VERSION) {
    throw new RangeError(`${what} must be a non-negative safe integer, got ${version}`);
  }
}

export type MetaName = 'latest' | 'earliest' | 'prune-target';

export function metaKey(name: MetaName): Uint8Array {
  const out = new Uint8Array(1 + name.length);
  out[0] = META;
  for (let i = 0; i < name.length; i++) out[i + 1] = name.charCodeAt(i);
  return out;
}

export function encodeU64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(n / 0x1_0000_0000));
  view.setUint32(4, n >>> 0);
  return out;
}

export function decodeU64(bytes: Uint8Array | undefined): number {
  if (!bytes || bytes.length !== 8) return 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  return view.getUint32(0) * 0x1_0000_0000 + view.getUint32(4);
}
