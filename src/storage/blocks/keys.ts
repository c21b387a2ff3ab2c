/**
 * Key layout of the block store (one LMDB environment, so a block and all its indexes commit in one
 * transaction). Heights are big-endian u64 so key order is height order.
 *
 *   00 'L' / 00 'E'             latest / earliest stored height (u64)
 *   01 ‖ height                 block record (block-codec.ts)
 *   02 ‖ blockHash(32)          height (u64)
 *   03 ‖ height                 block hash(32) ‖ block bloom(256), bloom omitted when the block has
 *                               no logs; unfiltered getLogs walks this range to skip log-less blocks
 *   04 ‖ height ‖ txIndex(u32)  receipt record (receipt-codec.ts)
 *   05 ‖ evmTxHash(32)          height(u64) ‖ blockTxIndex(u32) ‖ evmIndex(u32) ‖ blockHash(32)
 *   06 ‖ sha256(TxRaw)(32)      height(u64) ‖ blockTxIndex(u32), for every tx of the block
 *   07 ‖ height                 Cosmos tx results record (receipt-codec.ts)
 *   08 ‖ kind ‖ item ‖ height   logs index: txIndexes of the receipts whose logs hold the item
 *                               (log-index.ts)
 *   09 ‖ type.key ‖ value ‖ height   event index: the txs whose events hold the attribute
 *                               (event-index.ts)
 *   0A ‖ address ‖ height ‖ txIndex(u32)   address index: the EVM txs the address took part in, a
 *                               flags byte (sender, recipient, created, internal, log) and a sender's
 *                               nonce (address-index.ts)
 *   0B ‖ height                 the addresses of the height's address index entries (20 bytes each)
 *   00 'I'                      the first height written with its event index (u64); heights below
 *                               it were stored before the index existed
 *   00 'A'                      the first height written with its address index (u64), likewise
 */

export const META_LATEST = Uint8Array.of(0x00, 0x4c);
export const META_EARLIEST = Uint8Array.of(0x00, 0x45);
export const META_EVENTS_INDEXED_FROM = Uint8Array.of(0x00, 0x49);
export const META_ADDRESSES_INDEXED_FROM = Uint8Array.of(0x00, 0x41);
export const P_BLOCK = 0x01;
export const P_HASH = 0x02;
export const P_BLOOM = 0x03;
export const P_RECEIPT = 0x04;
export const P_EVM_TX = 0x05;
export const P_COSMOS_TX = 0x06;
export const P_RESULTS = 0x07;

export function heightKey(prefix: number, height: number): Uint8Array {
  const k = new Uint8Array(9);
  k[0] = prefix;
  new DataView(k.buffer).setBigUint64(1, BigInt(height));
  return k;
}

export function receiptKey(height: number, txIndex: number): Uint8Array {
  const k = new Uint8Array(13);
  k[0] = P_RECEIPT;
  const dv = new DataView(k.buffer);
  dv.setBigUint64(1, BigInt(height));
  dv.setUint32(9, txIndex);
  return k;
}

export function hashKey(prefix: number, hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + hash.length);
  k[0] = prefix;
  k.set(hash, 1);
  return k;
}

export function readHeightAt(buf: Uint8Array, off: number): number {
  return Number(new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getBigUint64(off));
}

export function encodeU64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

/** `height(u64) ‖ index(u32)`, plus `evmIndex(u32) ‖ blockHash(32)` for EVM txs. */
export function encodeLocation(
  height: number,
  index: number,
  evm?: { evmIndex: number; blockHash: Uint8Array },
): Uint8Array {
  const b = new Uint8Array(evm ? 12 + 4 + 32 : 12);
  const dv = new DataView(b.buffer);
  dv.setBigUint64(0, BigInt(height));
  dv.setUint32(8, index);
  if (evm) {
    dv.setUint32(12, evm.evmIndex);
    b.set(evm.blockHash, 16);
  }
  return b;
}

export function decodeLocation(b: Uint8Array): {
  height: number;
  index: number;
  evmIndex?: number;
  blockHash?: Uint8Array;
} {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const height = Number(dv.getBigUint64(0));
  const index = dv.getUint32(8);
  if (b.length === 16) return { height, index, evmIndex: dv.getUint32(12) };
  if (b.length < 48) return { height, index };
  return { height, index, evmIndex: dv.getUint32(12), blockHash: b.subarray(16, 48) };
}
