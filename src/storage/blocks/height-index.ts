/**
 * What the block store's secondary indexes (logs by address/topic, tx events by attribute) share:
 * a key is the item's prefix followed by the height as 8 bytes big-endian, so one item's heights
 * sort in order and a range of heights is one key range; the value lists the item's tx indexes in
 * that block, ascending, as uvarint deltas.
 */
import type { ByteReader, ByteWriter } from '../../primitives/byte-io.ts';

export function heightKey(prefix: Uint8Array, height: number): Uint8Array {
  const k = new Uint8Array(prefix.length + 8);
  k.set(prefix);
  new DataView(k.buffer).setBigUint64(prefix.length, BigInt(height));
  return k;
}

/** The height a `heightKey` ends with. */
export function heightOfKey(key: Uint8Array): number {
  return Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(key.length - 8));
}

/** Appends ascending tx indexes as uvarint deltas. */
export function writeTxIndexes(w: ByteWriter, txs: number[]): ByteWriter {
  let prev = 0;
  for (const tx of txs) {
    w.uv(tx - prev);
    prev = tx;
  }
  return w;
}

/** Reads what writeTxIndexes wrote, up to the end of the value. */
export function readTxIndexes(r: ByteReader, end: number): number[] {
  const out: number[] = [];
  let prev = 0;
  while (r.off < end) {
    prev += r.uv();
    out.push(prev);
  }
  return out;
}
