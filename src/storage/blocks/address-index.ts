/**
 * The address appearance index (docs/adr/0031-address-appearance-index.md): for every EVM tx, one
 * entry per address the tx touched, keyed so that one address's txs are one key range in block order:
 *
 *   0A ‖ address(20) ‖ height(u64) ‖ txIndex(u32)  →  u8 flags ‖ uvarint nonce (sender entries only)
 *   0B ‖ height                                    →  the addresses indexed at that height (20 bytes
 *                                                     each), so a height's entries can be deleted
 *
 * `txIndex` is the tx's Ethereum transactionIndex (its receipt's key). The flags say how the address
 * took part: it sent the tx, received it, was created by it (at any depth), appeared in its call tree
 * (a caller or callee of an internal call, a selfdestruct's beneficiary) or emitted one of its logs.
 * A sender's entry carries the tx's nonce, so eth_getTransactionBySenderAndNonce needs no state.
 */
import type { KVOp } from '../kv/types.ts';
import { ByteWriter } from '../../primitives/byte-io.ts';
import { recordReader } from './errors.ts';
import { heightKey } from './keys.ts';
import type { SyncReader } from './log-query.ts';
import type { Receipt, TxAppearances } from './types.ts';

export const P_ADDRESS_INDEX = 0x0a;
export const P_ADDRESS_LIST = 0x0b;

export const APPEARANCE = {
  sender: 1,
  recipient: 2,
  created: 4,
  internal: 8,
  log: 16,
} as const;

const ADDRESS_BYTES = 20;
const KEY_BYTES = 1 + ADDRESS_BYTES + 8 + 4;

/** One tx an address took part in. */
export interface Appearance {
  height: number;
  txIndex: number;
  /** APPEARANCE bits */
  flags: number;
  /** The tx's nonce, on a sender's entry. */
  nonce?: bigint;
}

export function appearanceKey(address: Uint8Array, height: number, txIndex: number): Uint8Array {
  const k = new Uint8Array(KEY_BYTES);
  k[0] = P_ADDRESS_INDEX;
  k.set(address, 1);
  const dv = new DataView(k.buffer);
  // a safe-integer height as two 32-bit halves: no BigInt on the write path
  dv.setUint32(1 + ADDRESS_BYTES, Math.floor(height / 0x1_0000_0000));
  dv.setUint32(1 + ADDRESS_BYTES + 4, height >>> 0);
  dv.setUint32(1 + ADDRESS_BYTES + 8, txIndex);
  return k;
}

export function decodeAppearance(key: Uint8Array, value: Uint8Array): Appearance {
  if (key.length !== KEY_BYTES) recordReader(key, 'address index key').fail(`length ${key.length}`);
  const dv = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const height = dv.getUint32(1 + ADDRESS_BYTES) * 0x1_0000_0000 + dv.getUint32(1 + ADDRESS_BYTES + 4);
  const txIndex = dv.getUint32(1 + ADDRESS_BYTES + 8);
  const r = recordReader(value, 'address index');
  const flags = r.u8();
  if (r.remaining === 0) return { height, txIndex, flags };
  return { height, txIndex, flags, nonce: r.big() };
}

export const addressListKey = (height: number) => heightKey(P_ADDRESS_LIST, height);

/** Collects one block's appearances, tx by tx, and writes them with the block. */
export class AddressIndexBuilder {
  /** address (latin1) → txIndex → entry */
  private readonly byAddress = new Map<string, { address: Uint8Array; txs: Map<number, Appearance> }>();

  add(address: Uint8Array, height: number, txIndex: number, flags: number, nonce?: bigint): void {
    const mk = Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString('latin1');
    let a = this.byAddress.get(mk);
    if (!a) this.byAddress.set(mk, (a = { address: address.slice(), txs: new Map() }));
    const e = a.txs.get(txIndex);
    if (!e) {
      const entry: Appearance = { height, txIndex, flags };
      if (nonce !== undefined) entry.nonce = nonce;
      a.txs.set(txIndex, entry);
    } else {
      e.flags |= flags;
      if (nonce !== undefined) e.nonce = nonce;
    }
  }

  /** A receipt's sender, recipient, created contract and log emitters, plus what execution saw. */
  addTx(height: number, rc: Receipt, seen?: TxAppearances): void {
    this.add(rc.from, height, rc.txIndex, APPEARANCE.sender, seen?.nonce);
    if (rc.to) this.add(rc.to, height, rc.txIndex, APPEARANCE.recipient);
    if (rc.contractAddress) this.add(rc.contractAddress, height, rc.txIndex, APPEARANCE.created);
    for (const l of rc.logs) this.add(l.address, height, rc.txIndex, APPEARANCE.log);
    for (const a of seen?.created ?? []) this.add(a, height, rc.txIndex, APPEARANCE.created);
    for (const a of seen?.internal ?? []) this.add(a, height, rc.txIndex, APPEARANCE.internal);
  }

  get addressCount(): number {
    return this.byAddress.size;
  }

  puts(height: number): KVOp[] {
    const ops: KVOp[] = [];
    if (this.byAddress.size === 0) return ops;
    const list = new Uint8Array(this.byAddress.size * ADDRESS_BYTES);
    let i = 0;
    for (const { address, txs } of this.byAddress.values()) {
      list.set(address, i++ * ADDRESS_BYTES);
      for (const e of txs.values())
        ops.push({ type: 'put', key: appearanceKey(address, height, e.txIndex), value: entryValue(e) });
    }
    ops.push({ type: 'put', key: addressListKey(height), value: list });
    return ops;
  }
}

/** `flags ‖ uvarint nonce` (ByteWriter.big's encoding), the nonce only on a sender's entry. */
function entryValue(e: Appearance): Uint8Array {
  if (e.nonce === undefined) return Uint8Array.of(e.flags);
  if (e.nonce < 0x80n) return Uint8Array.of(e.flags, Number(e.nonce));
  return new ByteWriter(12).u8(e.flags).big(e.nonce).finish();
}

/** Appends the deletes of every appearance of `height` and of its address list. */
export function collectAddressIndexDeletes(kv: SyncReader, height: number, ops: KVOp[]): void {
  const listKey = addressListKey(height);
  const list = kv.getSync(listKey);
  if (!list) return;
  if (list.length % ADDRESS_BYTES !== 0)
    recordReader(list, 'address list').fail(`length ${list.length} is not a multiple of 20`);
  for (let off = 0; off < list.length; off += ADDRESS_BYTES) {
    const address = list.subarray(off, off + ADDRESS_BYTES);
    const range = { gte: appearanceKey(address, height, 0), lt: appearanceKey(address, height + 1, 0) };
    for (const [key] of kv.iterateSync(range)) ops.push({ type: 'del', key });
  }
  ops.push({ type: 'del', key: listKey });
}

/** The key range of one address's appearances at heights [from, to]. */
export function appearanceRange(
  address: Uint8Array,
  from: number,
  to: number,
): { gte: Uint8Array; lt: Uint8Array } {
  return { gte: appearanceKey(address, from, 0), lt: appearanceKey(address, to + 1, 0) };
}
