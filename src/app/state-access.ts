/** The read/write view of state the modules work on (the block's StateOverlay, or a read-only view). */
import type { StateReader } from '../state/overlay.ts';

export interface StateWriter extends StateReader {
  set(store: string, key: Uint8Array, value: Uint8Array | undefined): void;
}

/**
 * A store's entries in [start, end) (no end: to the last key), in key order, at a height the caller
 * chose: listings, which the modules' synchronous readers cannot answer (only the State Store lists
 * keys, asynchronously).
 */
export interface StateRanges {
  range(
    store: string,
    start: Uint8Array,
    end: Uint8Array | undefined,
  ): AsyncIterable<{ key: Uint8Array; value: Uint8Array }>;
}

/**
 * The first key after every key that starts with `prefix`: the prefix without its trailing 0xff
 * bytes, its last byte + 1; undefined when every byte is 0xff (no key is after them all).
 */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) return undefined;
  const end = prefix.slice(0, n);
  end[n - 1]++;
  return end;
}

/** Every entry of `store` whose key starts with `prefix`, in key order. */
export async function entriesUnder(
  state: StateRanges,
  store: string,
  prefix: Uint8Array,
): Promise<{ key: Uint8Array; value: Uint8Array }[]> {
  const out: { key: Uint8Array; value: Uint8Array }[] = [];
  for await (const e of state.range(store, prefix, prefixEnd(prefix))) out.push(e);
  return out;
}

const TWO_32 = 2 ** 32;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function u64be(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  if (n >= 0n && n <= MAX_SAFE) {
    // a nonce is written on every transaction: number arithmetic, no DataView to allocate
    const v = Number(n);
    const hi = Math.floor(v / TWO_32);
    const lo = v >>> 0;
    out[0] = hi >>> 24;
    out[1] = (hi >>> 16) & 0xff;
    out[2] = (hi >>> 8) & 0xff;
    out[3] = hi & 0xff;
    out[4] = lo >>> 24;
    out[5] = (lo >>> 16) & 0xff;
    out[6] = (lo >>> 8) & 0xff;
    out[7] = lo & 0xff;
    return out;
  }
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function readU64be(b: Uint8Array | undefined): bigint {
  if (!b) return 0n;
  if (b.length !== 8) throw new Error(`expected an 8-byte integer, got ${b.length} bytes`);
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
}

const dec = new TextDecoder();

/** A bigint's decimal digits as ASCII bytes (what TextEncoder gives, without its per-call cost). */
export function decimal(n: bigint): Uint8Array {
  const s = n.toString();
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export function readDecimal(b: Uint8Array | undefined): bigint {
  if (!b) return 0n;
  // Balances are read many times per transaction: plain ASCII digits take the direct path; anything
  // else gets the full decode, so what is accepted or refused is exactly as before.
  let digits = b.length > 0 && b.length <= 256;
  for (let i = 0; digits && i < b.length; i++) digits = b[i] >= 0x30 && b[i] <= 0x39;
  if (digits) return BigInt(String.fromCharCode.apply(null, b as unknown as number[]));
  const s = dec.decode(b);
  if (!/^\d+$/.test(s)) throw new Error(`corrupt amount ${JSON.stringify(s)}`);
  return BigInt(s);
}
