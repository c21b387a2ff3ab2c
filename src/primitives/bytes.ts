/** Byte helpers shared by every layer. Bytes are Uint8Array throughout the node; hex exists only at
 * its edges (docs/adr/0011-layers-and-narrow-interfaces.md). */

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Sorts `items` by their byte keys (memcmp order), in place; returns `items`. Comparator sorts of
 * large arrays are bound by the comparator calls (200k keys: ~0.4 s with compareBytes, ~0.7 s with
 * Buffer.compare). Here each item becomes one double, its key's first four bytes above its index,
 * sorted natively as numbers; only runs that share those four bytes are then ordered by comparator.
 */
export function sortByBytes<T>(items: T[], keyOf: (item: T) => Uint8Array): T[] {
  const n = items.length;
  if (n > INDEX_LIMIT) return items.sort((a, b) => compareBytes(keyOf(a), keyOf(b)));
  const order = new Float64Array(n);
  for (let i = 0; i < n; i++) order[i] = prefixWord(keyOf(items[i])) * INDEX_LIMIT + i;
  order.sort();
  const sorted = Array.from(order, (x) => items[x % INDEX_LIMIT]);
  for (let i = 0; i < n;) {
    const word = Math.floor(order[i] / INDEX_LIMIT);
    let j = i + 1;
    while (j < n && Math.floor(order[j] / INDEX_LIMIT) === word) j++;
    if (j - i > 1) {
      const run = sorted.slice(i, j).sort((a, b) => compareBytes(keyOf(a), keyOf(b)));
      for (let k = i; k < j; k++) sorted[k] = run[k - i];
    }
    i = j;
  }
  for (let i = 0; i < n; i++) items[i] = sorted[i];
  return items;
}

/** 2^21: a four-byte word times this plus an index below it is an exact double (< 2^53). */
const INDEX_LIMIT = 2 ** 21;

/**
 * The first four bytes as a number, shorter keys zero-padded: orders keys like memcmp except
 * between a key and its zero-padded extensions, which compare equal here and are left to the run
 * sort.
 */
function prefixWord(k: Uint8Array): number {
  return (((k[0] ?? 0) << 24) | ((k[1] ?? 0) << 16) | ((k[2] ?? 0) << 8) | (k[3] ?? 0)) >>> 0;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
  return s;
}

/** Each ASCII character's hex digit value; -1 for characters that are not hex digits. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) HEX_VALUE[65 + i] = HEX_VALUE[97 + i] = 10 + i;

/**
 * Decodes `out.length` bytes of hex digits from `hex` at `from` into `out`; false at a character that
 * is not a hex digit (then `out` is partly written). A table lookup per digit: about a quarter of the
 * cost of a Buffer's hex decoder for an address, which is in nearly every request.
 */
export function hexInto(hex: string, from: number, out: Uint8Array): boolean {
  for (let i = 0, j = from; i < out.length; i++, j += 2) {
    const a = hex.charCodeAt(j);
    const b = hex.charCodeAt(j + 1);
    const hi = a < 128 ? HEX_VALUE[a] : -1;
    const lo = b < 128 ? HEX_VALUE[b] : -1;
    if ((hi | lo) < 0) return false;
    out[i] = (hi << 4) | lo;
  }
  return true;
}

export function fromHex(hex: string): Uint8Array {
  const from = hex.startsWith('0x') || hex.startsWith('0X') ? 2 : 0;
  const digits = hex.length - from;
  const out = digits % 2 === 0 ? new Uint8Array(digits / 2) : undefined;
  if (out === undefined || !hexInto(hex, from, out)) throw new TypeError(`invalid hex string: ${hex}`);
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

export function fromUtf8(b: Uint8Array): string {
  return decoder.decode(b);
}
