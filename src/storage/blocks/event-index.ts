/**
 * The event index (docs/adr/0021-tx-event-index.md): for every indexed attribute of a Cosmos tx's
 * event (`type.key` = value, `index: true`) that occurs in a block, one entry
 *
 *   09 ‖ part(type.key) ‖ part(value) ‖ height(u64)  →  u8 version (1) ‖ the txIndexes (positions in
 *                                                       the block) holding it, as uvarints: first
 *                                                       absolute, then deltas
 *
 * where part(s) is `u8 n ‖ s` (UTF-8, n ≤ 64 bytes) or `0xff ‖ sha256(s)` for longer strings, so a key
 * stays under 90 bytes whatever a value holds. An equality lookup reads one short key range; a scan
 * of one `type.key` (EXISTS, CONTAINS, ranges) walks its prefix. The index only proposes candidates:
 * callers check each tx's real events against the whole query, so a hashed part never decides a match.
 */
import type { KVOp } from '../kv/types.ts';
import { sha256 } from '../../crypto/hash.ts';
import { ByteWriter } from '../../primitives/byte-io.ts';
import { recordReader } from './errors.ts';
import { heightKey, heightOfKey, readTxIndexes, writeTxIndexes } from './height-index.ts';
import type { TxEvent } from './types.ts';

export const P_EVENT_INDEX = 0x09;
const VERSION = 1;
const MAX_PLAIN_PART = 64;
const HASHED_PART = 0xff;

function part(s: string): Uint8Array {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= MAX_PLAIN_PART) {
    const out = new Uint8Array(1 + bytes.length);
    out[0] = bytes.length;
    out.set(bytes, 1);
    return out;
  }
  const out = new Uint8Array(33);
  out[0] = HASHED_PART;
  out.set(sha256(bytes), 1);
  return out;
}

/** The key prefix of one `type.key` (any value), or of one `type.key` = value. */
export function eventIndexPrefix(compositeKey: string, value?: string): Uint8Array {
  const ck = part(compositeKey);
  const v = value === undefined ? new Uint8Array(0) : part(value);
  const k = new Uint8Array(1 + ck.length + v.length);
  k[0] = P_EVENT_INDEX;
  k.set(ck, 1);
  k.set(v, 1 + ck.length);
  return k;
}

export const eventIndexKey = heightKey;

/** The height an index key ends with. */
export const eventIndexKeyHeight = heightOfKey;

/** Collects one block's (type.key, value) → txIndexes, tx by tx in block order. */
export class EventIndexBuilder {
  private readonly entries = new Map<string, { prefix: Uint8Array; txs: number[] }>();

  addTx(txIndex: number, events: readonly TxEvent[]): void {
    for (const e of events)
      for (const a of e.attributes) {
        if (!a.index || e.type === '') continue;
        const prefix = eventIndexPrefix(`${e.type}.${a.key}`, a.value);
        const mk = Buffer.from(prefix).toString('latin1');
        const entry = this.entries.get(mk);
        if (!entry) this.entries.set(mk, { prefix, txs: [txIndex] });
        else if (entry.txs[entry.txs.length - 1] !== txIndex) entry.txs.push(txIndex);
      }
  }

  puts(height: number): KVOp[] {
    const ops: KVOp[] = [];
    for (const e of this.entries.values()) {
      const w = writeTxIndexes(new ByteWriter(e.txs.length * 2 + 3).u8(VERSION), e.txs);
      ops.push({ type: 'put', key: eventIndexKey(e.prefix, height), value: w.finish() });
    }
    return ops;
  }

  deletes(height: number): KVOp[] {
    return [...this.entries.values()].map((e) => ({
      type: 'del' as const,
      key: eventIndexKey(e.prefix, height),
    }));
  }
}

export function decodeEventTxIndexes(value: Uint8Array): number[] {
  const r = recordReader(value, 'event index');
  const v = r.u8();
  if (v !== VERSION) r.fail(`unknown event index record version ${v}`);
  return readTxIndexes(r, value.length);
}
