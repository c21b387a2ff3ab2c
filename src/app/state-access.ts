/** The read/write view of state the modules work on (the block's StateOverlay, or a read-only view). */
import type { StateReader } from '../state/overlay.ts';

export interface StateWriter extends StateReader {
  set(store: string, key: Uint8Array, value: Uint8Array | undefined): void;
}

export function u64be(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function readU64be(b: Uint8Array | undefined): bigint {
  if (!b) return 0n;
  if (b.length !== 8) throw new Error(`expected an 8-byte integer, got ${b.length} bytes`);
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export function decimal(n: bigint): Uint8Array {
  return enc.encode(n.toString());
}

export function readDecimal(b: Uint8Array | undefined): bigint {
  if (!b) return 0n;
  const s = dec.decode(b);
  if (!/^\d+$/.test(s)) throw new Error(`corrupt amount ${JSON.stringify(s)}`);
  return BigInt(s);
}
