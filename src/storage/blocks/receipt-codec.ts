/**
 * Binary records of receipts (one per EVM tx) and of a block's Cosmos tx results (version 1).
 *
 * Receipt: u8 version = 1, raw txHash(32), uv txIndex, uv blockTxIndex, u8 status, uv type,
 *   u8 flags (1 = has to, 2 = has contractAddress), raw from(20), [raw to(20)], [raw contract(20)],
 *   big gasUsed, big cumulativeGasUsed, big effectiveGasPrice,
 *   bloom: u8 mode (0 = all zero, 1 = sparse: uv n, n × u16 bit positions, 2 = raw 256 bytes),
 *   uv firstLogIndex, uv logCount, logCount × (raw address(20), u8 nTopics, nTopics × raw topic(32),
 *   bytes data),
 *   then, for a failed tx only, str vmError, bytes revertData (records written before these existed
 *   end after the logs, and decode without them), then, for a tx that failed before execution only,
 *   u8 flags = 1 (other records end before it, so their bytes are unchanged).
 * A log's logIndex is firstLogIndex + its position, and its txIndex/txHash are the receipt's, so
 * they are not repeated. The bloom is sparse because a receipt with a few logs sets a few dozen of
 * its 2048 bits: 2 bytes per set bit instead of 256 bytes.
 *
 * Cosmos results: u8 version = 1, uv n, n × (uv index, uv code, str codespace, str log,
 *   big gasWanted, big gasUsed, uv nEvents, nEvents × (str type, uv nAttrs, nAttrs × (str key,
 *   str value, u8 index))).
 */
import { BLOOM_BYTES } from './bloom.ts';
import { ByteWriter, type ByteReader } from '../../primitives/byte-io.ts';
import { recordReader } from './errors.ts';
import type { CosmosTxResult, Log, Receipt } from './types.ts';

const VERSION = 1;
const FLAG_TO = 1;
const FLAG_CONTRACT = 2;
const BLOOM_ZERO = 0;
const BLOOM_SPARSE = 1;
const BLOOM_RAW = 2;
const TRAILER_FAILED_BEFORE_EXECUTION = 1;

function popcount8(b: number): number {
  b = b - ((b >> 1) & 0x55);
  b = (b & 0x33) + ((b >> 2) & 0x33);
  return (b + (b >> 4)) & 0x0f;
}

function writeBloom(w: ByteWriter, bloom: Uint8Array): void {
  let bits = 0;
  for (let i = 0; i < BLOOM_BYTES; i++) bits += popcount8(bloom[i]);
  if (bits === 0) {
    w.u8(BLOOM_ZERO);
  } else if (bits * 2 < BLOOM_BYTES) {
    w.u8(BLOOM_SPARSE).uv(bits);
    for (let i = 0; i < BLOOM_BYTES; i++) {
      const b = bloom[i];
      if (b === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (b & (1 << bit)) w.u16be(i * 8 + bit);
    }
  } else {
    w.u8(BLOOM_RAW).raw(bloom);
  }
}

function readBloom(r: ByteReader): Uint8Array {
  const mode = r.u8();
  const bloom = new Uint8Array(BLOOM_BYTES);
  if (mode === BLOOM_SPARSE) {
    const n = r.uv();
    for (let i = 0; i < n; i++) {
      const pos = r.u16be();
      if (pos >= BLOOM_BYTES * 8) r.fail(`bloom bit ${pos} out of range`);
      bloom[pos >> 3] |= 1 << (pos & 7);
    }
  } else if (mode === BLOOM_RAW) {
    bloom.set(r.raw(BLOOM_BYTES));
  } else if (mode !== BLOOM_ZERO) {
    r.fail(`unknown bloom mode ${mode}`);
  }
  return bloom;
}

function skipBloom(r: ByteReader): void {
  const mode = r.u8();
  if (mode === BLOOM_SPARSE) r.skip(r.uv() * 2);
  else if (mode === BLOOM_RAW) r.skip(BLOOM_BYTES);
}

export function encodeReceipt(rc: Receipt): Uint8Array {
  let size = 200;
  for (const l of rc.logs) size += 32 + l.topics.length * 32 + l.data.length;
  const w = new ByteWriter(size);
  const flags = (rc.to ? FLAG_TO : 0) | (rc.contractAddress ? FLAG_CONTRACT : 0);
  w.u8(VERSION).raw(rc.txHash).uv(rc.txIndex).uv(rc.blockTxIndex).u8(rc.status).uv(rc.type).u8(flags);
  w.raw(rc.from);
  if (rc.to) w.raw(rc.to);
  if (rc.contractAddress) w.raw(rc.contractAddress);
  w.big(rc.gasUsed).big(rc.cumulativeGasUsed).big(rc.effectiveGasPrice);
  writeBloom(w, rc.logsBloom);
  w.uv(rc.logs.length === 0 ? 0 : rc.logs[0].logIndex).uv(rc.logs.length);
  for (const l of rc.logs) {
    w.raw(l.address).u8(l.topics.length);
    for (const t of l.topics) w.raw(t);
    w.bytes(l.data);
  }
  if (rc.vmError !== undefined || rc.failedBeforeExecution)
    w.str(rc.vmError ?? '').bytes(rc.revertData ?? new Uint8Array(0));
  if (rc.failedBeforeExecution) w.u8(TRAILER_FAILED_BEFORE_EXECUTION);
  return w.finish();
}

interface ReceiptHead {
  txHash: Uint8Array;
  txIndex: number;
}

function readVersion(r: ByteReader): void {
  const v = r.u8();
  if (v !== VERSION) r.fail(`unknown receipt record version ${v}`);
}

export function decodeReceipt(buf: Uint8Array): Receipt {
  const r = recordReader(buf, 'receipt');
  readVersion(r);
  const txHash = r.raw(32);
  const txIndex = r.uv();
  const blockTxIndex = r.uv();
  const status = r.u8();
  if (status > 1) r.fail(`status ${status}`);
  const type = r.uv();
  const flags = r.u8();
  const from = r.raw(20);
  const to = flags & FLAG_TO ? r.raw(20) : null;
  const contractAddress = flags & FLAG_CONTRACT ? r.raw(20) : null;
  const rc: Receipt = {
    txHash,
    txIndex,
    blockTxIndex,
    from,
    to,
    contractAddress,
    status: status as 0 | 1,
    gasUsed: r.big(),
    cumulativeGasUsed: r.big(),
    effectiveGasPrice: r.big(),
    type,
    logsBloom: readBloom(r),
    logs: [],
  };
  readLogs(r, { txHash, txIndex }, () => true, rc.logs);
  if (r.off < buf.length) {
    rc.vmError = r.str();
    const revertData = r.bytes();
    if (revertData.length > 0) rc.revertData = revertData;
    if (r.off < buf.length) {
      const flags = r.u8();
      if (flags !== TRAILER_FAILED_BEFORE_EXECUTION) r.fail(`receipt trailer flags ${flags}`);
      rc.failedBeforeExecution = true;
    }
  }
  r.end();
  return rc;
}

/**
 * Decides from the raw record whether a log matches, before anything is allocated: `addressOff` is
 * the offset of the 20-byte address in `buf`, topic i starts at `topicsOff + 32 * i`.
 */
export type RawLogMatcher = (
  buf: Uint8Array,
  addressOff: number,
  nTopics: number,
  topicsOff: number,
) => boolean;

function readLogs(r: ByteReader, head: ReceiptHead, match: RawLogMatcher, out: Log[]): void {
  const first = r.uv();
  const n = r.uv();
  for (let i = 0; i < n; i++) {
    const addressOff = r.off;
    r.skip(20);
    const nTopics = r.u8();
    if (nTopics > 4) r.fail(`${nTopics} topics`);
    const topicsOff = r.off;
    r.skip(nTopics * 32);
    const data = r.bytes();
    if (!match(r.buf, addressOff, nTopics, topicsOff)) continue;
    const topics: Uint8Array[] = new Array(nTopics);
    for (let t = 0; t < nTopics; t++) topics[t] = r.buf.subarray(topicsOff + t * 32, topicsOff + t * 32 + 32);
    out.push({
      address: r.buf.subarray(addressOff, addressOff + 20),
      topics,
      data,
      logIndex: first + i,
      txIndex: head.txIndex,
      txHash: head.txHash,
    });
  }
}

/** Appends the logs of a receipt record that `match` accepts, skipping the receipt's other fields. */
export function scanReceiptLogs(buf: Uint8Array, match: RawLogMatcher, out: Log[]): void {
  const r = recordReader(buf, 'receipt');
  readVersion(r);
  const txHash = r.raw(32);
  const txIndex = r.uv();
  r.skipVarint(); // blockTxIndex
  r.skip(1); // status
  r.skipVarint(); // type
  const flags = r.u8();
  r.skip(20 + (flags & FLAG_TO ? 20 : 0) + (flags & FLAG_CONTRACT ? 20 : 0));
  r.skipVarint();
  r.skipVarint();
  r.skipVarint();
  skipBloom(r);
  readLogs(r, { txHash, txIndex }, match, out);
}

/** The tx hash of a receipt record (for index clean-up on truncate/prune). */
export function receiptTxHash(buf: Uint8Array): Uint8Array {
  const r = recordReader(buf, 'receipt');
  readVersion(r);
  return r.raw(32);
}

export function encodeCosmosResults(results: CosmosTxResult[]): Uint8Array {
  const w = new ByteWriter(256);
  w.u8(VERSION).uv(results.length);
  for (const res of results) {
    w.uv(res.index).uv(res.code).str(res.codespace).str(res.log).big(res.gasWanted).big(res.gasUsed);
    w.uv(res.events.length);
    for (const e of res.events) {
      w.str(e.type).uv(e.attributes.length);
      for (const a of e.attributes)
        w.str(a.key)
          .str(a.value)
          .u8(a.index ? 1 : 0);
    }
  }
  return w.finish();
}

export function decodeCosmosResults(buf: Uint8Array): CosmosTxResult[] {
  const r = recordReader(buf, 'cosmos tx results');
  const v = r.u8();
  if (v !== VERSION) r.fail(`unknown cosmos results record version ${v}`);
  const n = r.uv();
  const out: CosmosTxResult[] = [];
  for (let i = 0; i < n; i++) {
    const res: CosmosTxResult = {
      index: r.uv(),
      code: r.uv(),
      codespace: r.str(),
      log: r.str(),
      gasWanted: r.big(),
      gasUsed: r.big(),
      events: [],
    };
    const nEvents = r.uv();
    for (let e = 0; e < nEvents; e++) {
      const type = r.str();
      const nAttrs = r.uv();
      const attributes = [];
      for (let a = 0; a < nAttrs; a++) attributes.push({ key: r.str(), value: r.str(), index: r.u8() === 1 });
      res.events.push({ type, attributes });
    }
    out.push(res);
  }
  r.end();
  return out;
}
