/**
 * The logs index: for every (address | topic-at-position, block) pair that occurs, one entry
 *
 *   08 ‖ kind ‖ item ‖ height(u64)  →  the txIndexes (receipts) of that block whose logs hold it,
 *                                       as uvarints: first absolute, then deltas
 *
 * with kind 0 = log address (20 bytes), 1-4 = topic at position 0-3 (32 bytes). A filtered
 * eth_getLogs reads one short key range per filter value instead of every block of the range: an
 * address that never logged costs one seek whatever the range, and a hit leads straight to the
 * receipts to read. A block bloom cannot do this on busy blocks: 1,000 receipts with two logs each
 * put thousands of distinct items into 2,048 bits, which saturates it (every bloom test passes).
 */
import type { KVOp } from '../kv/types.ts';
import { ByteWriter } from '../../primitives/byte-io.ts';
import { recordReader } from './errors.ts';
import { heightKey, readTxIndexes, writeTxIndexes } from './height-index.ts';
import type { Log } from './types.ts';

export const P_LOG_INDEX = 0x08;
export const KIND_ADDRESS = 0;
/** Topic at position i has kind KIND_TOPIC0 + i. */
export const KIND_TOPIC0 = 1;

export function logIndexPrefix(kind: number, item: Uint8Array): Uint8Array {
  const k = new Uint8Array(2 + item.length);
  k[0] = P_LOG_INDEX;
  k[1] = kind;
  k.set(item, 2);
  return k;
}

export const logIndexKey = heightKey;

/** A string key for Maps: kind byte + the item's bytes as latin1 (exact, cheap in V8). */
function mapKey(kind: number, item: Uint8Array): string {
  return (
    String.fromCharCode(kind) + Buffer.from(item.buffer, item.byteOffset, item.length).toString('latin1')
  );
}

/** Collects the (kind, item) → txIndexes of one block, receipt by receipt, in txIndex order. */
export class LogIndexBuilder {
  private readonly entries = new Map<string, { kind: number; item: Uint8Array; txs: number[] }>();

  add(kind: number, item: Uint8Array, txIndex: number): void {
    const key = mapKey(kind, item);
    const e = this.entries.get(key);
    if (!e) this.entries.set(key, { kind, item, txs: [txIndex] });
    else if (e.txs[e.txs.length - 1] !== txIndex) e.txs.push(txIndex);
  }

  addLogs(logs: Iterable<Pick<Log, 'address' | 'topics'>>, txIndex: number): void {
    for (const log of logs) {
      this.add(KIND_ADDRESS, log.address, txIndex);
      for (let i = 0; i < log.topics.length; i++) this.add(KIND_TOPIC0 + i, log.topics[i], txIndex);
    }
  }

  puts(height: number): KVOp[] {
    const ops: KVOp[] = [];
    for (const e of this.entries.values()) {
      const w = writeTxIndexes(new ByteWriter(e.txs.length * 2 + 2), e.txs);
      ops.push({ type: 'put', key: logIndexKey(logIndexPrefix(e.kind, e.item), height), value: w.finish() });
    }
    return ops;
  }

  deletes(height: number): KVOp[] {
    return [...this.entries.values()].map((e) => ({
      type: 'del' as const,
      key: logIndexKey(logIndexPrefix(e.kind, e.item), height),
    }));
  }
}

export function decodeTxIndexes(value: Uint8Array): number[] {
  return readTxIndexes(recordReader(value, 'log index'), value.length);
}
