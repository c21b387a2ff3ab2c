/**
 * The block store (docs/adr/0006-receipts-in-the-block-store.md): blocks by height and hash, EVM and Cosmos tx-hash indexes,
 * receipts with their logs, Cosmos tx results, a per-block bloom, and the latest/earliest watermarks,
 * in one LMDB environment under `<dataDir>/blockstore/` (key layout in keys.ts). Everything of one
 * height is written by one transaction, so a crash leaves a height either complete or absent.
 *
 * eth_getLogs with an address or topic filter reads the logs index (log-index.ts) and then only the
 * receipts it names; without a filter it walks the small per-block records (hash ‖ 256-byte bloom,
 * or just the hash for a block without logs) to skip blocks that have no logs.
 *
 * Reads are synchronous (LMDB serves them from its memory map); writes are serialised.
 */
import { join } from 'node:path';
import { sha256 } from '../../crypto/hash.ts';
import { openLmdbStore } from '../kv/lmdb.ts';
import type { KVOp, KVStore } from '../kv/types.ts';
import { acquireDirLock, type DirLock } from '../../util/dir-lock.ts';
import { decodeBlock, decodeHeader, decodeTxAt, encodeBlock } from './block-codec.ts';
import { BLOOM_BYTES } from './bloom.ts';
import {
  BlockHeightError,
  BlockStoreClosedError,
  InvalidBlockDataError,
  InvalidLogQueryError,
} from './errors.ts';
import {
  decodeLocation,
  encodeLocation,
  encodeU64,
  hashKey,
  heightKey,
  META_ADDRESSES_INDEXED_FROM,
  META_EARLIEST,
  META_EVENTS_INDEXED_FROM,
  META_LATEST,
  P_BLOCK,
  P_BLOOM,
  P_COSMOS_TX,
  P_EVM_TX,
  P_HASH,
  P_RESULTS,
  readHeightAt,
  receiptKey,
} from './keys.ts';
import { compileLogFilter } from './log-filter.ts';
import { LogIndexBuilder } from './log-index.ts';
import {
  decodeEventTxIndexes,
  EventIndexBuilder,
  eventIndexKey,
  eventIndexKeyHeight,
  eventIndexPrefix,
} from './event-index.ts';
import { collectHeightDeletes } from './removal.ts';
import {
  AddressIndexBuilder,
  APPEARANCE,
  appearanceKey,
  appearanceRange,
  decodeAppearance,
  type Appearance,
} from './address-index.ts';
import { queryLogs, type SyncReader } from './log-query.ts';
import { decodeCosmosResults, decodeReceipt, encodeCosmosResults, encodeReceipt } from './receipt-codec.ts';
import type {
  AppearancePage,
  Block,
  CosmosTxResult,
  EvmTxLocation,
  LogQuery,
  LogQueryResult,
  Receipt,
  StoredReceipt,
  TxAppearances,
  TxLocation,
} from './types.ts';
import { validateBlock, validateCosmosResults, validateReceipts } from './validate.ts';
import type { Header } from '../../codec/index.ts';

export const DEFAULT_LOG_LIMIT = 10_000;
/** Ops per transaction when truncating or pruning: big enough to be fast, small enough to not stall. */
const DELETE_BATCH_OPS = 20_000;

export interface BlockStoreOptions {
  /** The node's data directory; the store lives in `<dataDir>/blockstore/`. */
  dataDir: string;
  /** fsync every write (default true); benchmarks and throwaway stores may turn it off. */
  sync?: boolean;
  /** Heights per logs-index window in getLogs (default 1,024); tests use small windows. */
  logIndexWindow?: number;
}

export async function openBlockStore(options: BlockStoreOptions): Promise<BlockStore> {
  const dir = join(options.dataDir, 'blockstore');
  const lock = acquireDirLock(dir);
  let kv: KVStore;
  try {
    kv = await openLmdbStore(dir, { sync: options.sync ?? true });
  } catch (err) {
    lock.release();
    throw err;
  }
  return new BlockStore(kv, lock, dir, options.logIndexWindow);
}

/**
 * The block store of `dataDir` for reading only, from another thread of the process that holds it
 * open (an RPC reader thread): no lock (the process already holds it), every write refused, and
 * `refresh` to see what the writing thread committed since.
 */
export async function openBlockStoreReader(dataDir: string): Promise<BlockStore> {
  const dir = join(dataDir, 'blockstore');
  const kv = await openLmdbStore(dir);
  return new BlockStore(kv, undefined, dir);
}

export class BlockStore {
  readonly path: string;
  private readonly kv: KVStore & SyncReader;
  /** Absent: a reader (openBlockStoreReader), which refuses writes. */
  private readonly lock: DirLock | undefined;
  private latest: number | undefined;
  private earliest: number | undefined;
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly logIndexWindow: number | undefined;
  private eventsIndexedFrom: number | undefined;
  private addressesIndexedFrom: number | undefined;

  constructor(kv: KVStore, lock: DirLock | undefined, path: string, logIndexWindow?: number) {
    this.logIndexWindow = logIndexWindow;
    if (!kv.getSync || !kv.iterateSync)
      throw new TypeError(`block store needs an engine with synchronous reads, got ${kv.engine}`);
    this.kv = kv as KVStore & SyncReader;
    this.lock = lock;
    this.path = path;
    this.readWatermarks();
  }

  private readWatermarks(): void {
    const kv = this.kv;
    const l = kv.getSync(META_LATEST);
    const e = kv.getSync(META_EARLIEST);
    this.latest = l ? readHeightAt(l, 0) : undefined;
    this.earliest = e ? readHeightAt(e, 0) : undefined;
    const i = kv.getSync(META_EVENTS_INDEXED_FROM);
    this.eventsIndexedFrom = i ? readHeightAt(i, 0) : undefined;
    const a = kv.getSync(META_ADDRESSES_INDEXED_FROM);
    this.addressesIndexedFrom = a ? readHeightAt(a, 0) : undefined;
  }

  /**
   * A reader reads the watermarks again, from the view its reads have now. `renew`: that view first
   * moves to everything committed until now (lmdb moves it by itself once per turn of the event loop).
   */
  refresh(renew = false): void {
    this.assertOpen();
    if (renew) this.kv.renewReads?.();
    this.readWatermarks();
  }

  /** The newest stored height; undefined while the store is empty. */
  latestHeight(): number | undefined {
    return this.latest;
  }

  /** The oldest stored height (raised by pruneBelow); undefined while the store is empty. */
  earliestHeight(): number | undefined {
    return this.earliest;
  }

  /** Runs writers one at a time, so watermarks and batches never interleave. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new BlockStoreClosedError(this.path));
    if (!this.lock)
      return Promise.reject(new TypeError(`the block store in ${this.path} is open for reading only`));
    const run = this.writing.then(fn, fn);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private assertOpen(): void {
    if (this.closed) throw new BlockStoreClosedError(this.path);
  }

  /**
   * Stores a block with its receipts (one per EVM tx, in EVM tx order) and the results of its Cosmos
   * txs, all in one atomic, durable write. The height must be latest + 1 (any height ≥ 1 when empty).
   * Throws InvalidBlockDataError / BlockHeightError before writing anything. `appearances`: what
   * execution saw of each EVM tx (by transactionIndex) for the address index; without it a tx is
   * indexed under the addresses its receipt names only.
   */
  putBlock(
    block: Block,
    receipts: Receipt[] = [],
    cosmosResults: CosmosTxResult[] = [],
    appearances?: readonly TxAppearances[],
  ): Promise<void> {
    return this.exclusive(async () => {
      validateBlock(block);
      const height = block.header.height;
      if (this.latest !== undefined && height !== this.latest + 1)
        throw new BlockHeightError(height, this.latest + 1);
      validateReceipts(block, receipts);
      validateCosmosResults(block, cosmosResults);

      const ops: KVOp[] = [];
      const put = (key: Uint8Array, value: Uint8Array) => ops.push({ type: 'put', key, value });
      put(heightKey(P_BLOCK, height), encodeBlock(block));
      put(hashKey(P_HASH, block.hash), encodeU64(height));
      // The block bloom is the OR of the receipts' blooms (Ethereum's definition); no keccak here.
      // getLogs does not rely on it for filtering (the logs index does that), only for eth_getBlock.
      const bloom = new Uint8Array(BLOOM_BYTES);
      let hasLogs = false;
      const logIndex = new LogIndexBuilder();
      for (const rc of receipts) {
        for (let i = 0; i < BLOOM_BYTES; i++) bloom[i] |= rc.logsBloom[i];
        if (rc.logs.length > 0) hasLogs = true;
        logIndex.addLogs(rc.logs, rc.txIndex);
        put(receiptKey(height, rc.txIndex), encodeReceipt(rc));
        put(
          hashKey(P_EVM_TX, rc.txHash),
          encodeLocation(height, rc.blockTxIndex, { evmIndex: rc.txIndex, blockHash: block.hash }),
        );
      }
      const bloomRecord = new Uint8Array(hasLogs ? 32 + BLOOM_BYTES : 32);
      bloomRecord.set(block.hash);
      if (hasLogs) bloomRecord.set(bloom, 32);
      put(heightKey(P_BLOOM, height), bloomRecord);
      for (const op of logIndex.puts(height)) ops.push(op);
      block.txs.forEach((tx, i) => put(hashKey(P_COSMOS_TX, sha256(tx)), encodeLocation(height, i)));
      if (cosmosResults.length > 0) put(heightKey(P_RESULTS, height), encodeCosmosResults(cosmosResults));
      // Cosmos txs' events only: an EVM tx's are derived from its receipt (tx-events.ts), found by
      // the EVM hash index, and indexing them would cost a busy EVM block more than the rest of its write
      const eventIndex = new EventIndexBuilder();
      for (const r of [...cosmosResults].sort((a, b) => a.index - b.index))
        eventIndex.addTx(r.index, r.events);
      for (const op of eventIndex.puts(height)) ops.push(op);
      const addressIndex = new AddressIndexBuilder();
      for (const rc of receipts) addressIndex.addTx(height, rc, appearances?.[rc.txIndex]);
      for (const op of addressIndex.puts(height)) ops.push(op);
      const indexedFrom = this.eventsIndexedFrom ?? height;
      if (this.eventsIndexedFrom === undefined) put(META_EVENTS_INDEXED_FROM, encodeU64(height));
      // a store written before the address index existed has it from this height on
      const addressesFrom = this.addressesIndexedFrom ?? height;
      if (this.addressesIndexedFrom === undefined) put(META_ADDRESSES_INDEXED_FROM, encodeU64(height));
      put(META_LATEST, encodeU64(height));
      if (this.earliest === undefined) put(META_EARLIEST, encodeU64(height));
      await this.kv.write(ops);
      this.latest = height;
      if (this.earliest === undefined) this.earliest = height;
      this.eventsIndexedFrom = indexedFrom;
      this.addressesIndexedFrom = addressesFrom;
    });
  }

  /**
   * Makes an empty store begin above `height` (a node restored from a state-sync snapshot of that
   * height has no block at or below it): latest becomes `height` and earliest `height + 1`, so the
   * next block stored is `height + 1` and lookups below it answer as pruned ones do.
   */
  startAfter(height: number): Promise<void> {
    return this.exclusive(async () => {
      assertHeightArg(height, 'startAfter');
      if (this.latest !== undefined) throw new BlockHeightError(height + 1, this.latest + 1);
      await this.kv.write([
        { type: 'put', key: META_LATEST, value: encodeU64(height) },
        { type: 'put', key: META_EARLIEST, value: encodeU64(height + 1) },
      ]);
      this.latest = height;
      this.earliest = height + 1;
    });
  }

  /** Removes every height above `height` (blocks, receipts, results, blooms, index entries). */
  truncateAbove(height: number): Promise<void> {
    return this.exclusive(async () => {
      assertHeightArg(height, 'truncateAbove');
      if (this.latest === undefined || this.earliest === undefined || height >= this.latest) return;
      const earliest = this.earliest;
      let ops: KVOp[] = [];
      for (let h = this.latest; h > height && h >= earliest; h--) {
        collectHeightDeletes(this.kv, h, ops);
        const newLatest = h - 1;
        const empty = newLatest < earliest;
        if (ops.length < DELETE_BATCH_OPS && newLatest > height && !empty) continue;
        if (empty)
          ops.push(
            { type: 'del', key: META_LATEST },
            { type: 'del', key: META_EARLIEST },
            { type: 'del', key: META_EVENTS_INDEXED_FROM },
            { type: 'del', key: META_ADDRESSES_INDEXED_FROM },
          );
        else ops.push({ type: 'put', key: META_LATEST, value: encodeU64(newLatest) });
        await this.kv.write(ops);
        ops = [];
        this.latest = empty ? undefined : newLatest;
        if (empty) this.earliest = this.eventsIndexedFrom = this.addressesIndexedFrom = undefined;
      }
    });
  }

  /**
   * Removes every height below `height`, keeping at least the latest block (the watermark must
   * name a block that exists). Earliest moves up batch by batch, so a crash mid-way is consistent.
   */
  pruneBelow(height: number): Promise<void> {
    return this.exclusive(async () => {
      assertHeightArg(height, 'pruneBelow');
      if (this.latest === undefined || this.earliest === undefined) return;
      const target = Math.min(height, this.latest);
      let ops: KVOp[] = [];
      for (let h: number = this.earliest; h < target; h++) {
        collectHeightDeletes(this.kv, h, ops);
        if (ops.length < DELETE_BATCH_OPS && h + 1 < target) continue;
        ops.push({ type: 'put', key: META_EARLIEST, value: encodeU64(h + 1) });
        // the index's start never lies below what is stored (a pruned store equals one started later)
        const raiseIndexed = this.eventsIndexedFrom !== undefined && this.eventsIndexedFrom < h + 1;
        if (raiseIndexed) ops.push({ type: 'put', key: META_EVENTS_INDEXED_FROM, value: encodeU64(h + 1) });
        const raiseAddresses = this.addressesIndexedFrom !== undefined && this.addressesIndexedFrom < h + 1;
        if (raiseAddresses)
          ops.push({ type: 'put', key: META_ADDRESSES_INDEXED_FROM, value: encodeU64(h + 1) });
        await this.kv.write(ops);
        ops = [];
        this.earliest = h + 1;
        if (raiseIndexed) this.eventsIndexedFrom = h + 1;
        if (raiseAddresses) this.addressesIndexedFrom = h + 1;
      }
    });
  }

  /** One tx of a block (a TxRaw), without decoding the others: eth_getTransactionByHash's read. */
  txAt(height: number, index: number): Uint8Array | undefined {
    this.assertOpen();
    const rec = this.kv.getSync(heightKey(P_BLOCK, height));
    return rec ? decodeTxAt(rec, index) : undefined;
  }

  blockByHeight(height: number): Block | undefined {
    this.assertOpen();
    const rec = this.kv.getSync(heightKey(P_BLOCK, height));
    return rec ? decodeBlock(rec) : undefined;
  }

  /** The header and block hash only (no txs or commit decoded). */
  headerByHeight(height: number): { header: Header; hash: Uint8Array } | undefined {
    this.assertOpen();
    const rec = this.kv.getSync(heightKey(P_BLOCK, height));
    return rec ? decodeHeader(rec) : undefined;
  }

  heightByHash(hash: Uint8Array): number | undefined {
    this.assertOpen();
    const v = this.kv.getSync(hashKey(P_HASH, hash));
    return v ? readHeightAt(v, 0) : undefined;
  }

  blockByHash(hash: Uint8Array): Block | undefined {
    const h = this.heightByHash(hash);
    return h === undefined ? undefined : this.blockByHeight(h);
  }

  /** The block hash at a height, from the small bloom record (no block decode). */
  blockHashByHeight(height: number): Uint8Array | undefined {
    this.assertOpen();
    return this.kv.getSync(heightKey(P_BLOOM, height))?.subarray(0, 32);
  }

  /** The block's bloom (all zero for a block without logs). */
  blockBloom(height: number): Uint8Array | undefined {
    this.assertOpen();
    const rec = this.kv.getSync(heightKey(P_BLOOM, height));
    if (!rec) return undefined;
    return rec.length > 32 ? rec.subarray(32) : new Uint8Array(256);
  }

  txLocationByEvmHash(hash: Uint8Array): EvmTxLocation | undefined {
    this.assertOpen();
    const v = this.kv.getSync(hashKey(P_EVM_TX, hash));
    if (!v) return undefined;
    const loc = decodeLocation(v);
    // Entries written before the block hash joined the value (12 + 4 bytes) look it up instead.
    const blockHash = loc.blockHash ?? this.blockHashByHeight(loc.height);
    if (loc.evmIndex === undefined || !blockHash) return undefined;
    return { height: loc.height, index: loc.index, evmIndex: loc.evmIndex, blockHash };
  }

  /** Location of any tx of a block by its SHA-256 (Tendermint hash), Cosmos or wrapped EVM. */
  txLocationByCosmosHash(hash: Uint8Array): TxLocation | undefined {
    this.assertOpen();
    const v = this.kv.getSync(hashKey(P_COSMOS_TX, hash));
    if (!v) return undefined;
    const { height, index } = decodeLocation(v);
    return { height, index };
  }

  /** Receipts of a block in EVM tx order; undefined if the block is not stored. */
  receiptsOfBlock(height: number): Receipt[] | undefined {
    this.assertOpen();
    if (!this.kv.getSync(heightKey(P_BLOOM, height))) return undefined;
    const out: Receipt[] = [];
    for (const [, v] of this.kv.iterateSync({ gte: receiptKey(height, 0), lt: receiptKey(height + 1, 0) })) {
      out.push(decodeReceipt(v));
    }
    return out;
  }

  receipt(height: number, txIndex: number): Receipt | undefined {
    this.assertOpen();
    const v = this.kv.getSync(receiptKey(height, txIndex));
    return v ? decodeReceipt(v) : undefined;
  }

  receiptByEvmHash(hash: Uint8Array): StoredReceipt | undefined {
    const loc = this.txLocationByEvmHash(hash);
    if (!loc) return undefined;
    const v = this.kv.getSync(receiptKey(loc.height, loc.evmIndex));
    if (!v) return undefined; // removed between the two reads
    return { receipt: decodeReceipt(v), height: loc.height, blockHash: loc.blockHash };
  }

  /** Results of the block's Cosmos txs, by tx index; undefined if the block is not stored. */
  cosmosResultsOfBlock(height: number): CosmosTxResult[] | undefined {
    this.assertOpen();
    const v = this.kv.getSync(heightKey(P_RESULTS, height));
    if (v) return decodeCosmosResults(v);
    return this.kv.getSync(heightKey(P_BLOOM, height)) ? [] : undefined;
  }

  cosmosResultByHash(hash: Uint8Array): { result: CosmosTxResult; location: TxLocation } | undefined {
    const location = this.txLocationByCosmosHash(hash);
    if (!location) return undefined;
    const result = this.cosmosResultsOfBlock(location.height)?.find((r) => r.index === location.index);
    return result ? { result, location } : undefined;
  }

  /**
   * The first height whose txs' events are in the event index (blocks stored before the index
   * existed are not); undefined while no block was stored with it.
   */
  eventsIndexedSince(): number | undefined {
    return this.eventsIndexedFrom;
  }

  /**
   * Txs of heights [from, to] whose events hold an indexed attribute `compositeKey` (`type.key`) with
   * exactly `value`, or with any value when `value` is undefined, in (height, index) order. At most
   * `maxEntries` index entries are read (with any value, those of other heights too): `truncated`
   * says the answer stopped there. Candidates only:
   * the caller checks the events themselves (event-index.ts).
   */
  txsByEvent(
    compositeKey: string,
    value: string | undefined,
    from: number,
    to: number,
    maxEntries: number,
  ): { locations: TxLocation[]; truncated: boolean } {
    this.assertOpen();
    const prefix = eventIndexPrefix(compositeKey, value);
    const found: TxLocation[] = [];
    let read = 0;
    let truncated = false;
    if (from > to) return { locations: found, truncated };
    // one value: its entries are in height order, so [from, to] is one key range
    const range =
      value !== undefined
        ? { gte: eventIndexKey(prefix, from), lt: eventIndexKey(prefix, to + 1) }
        : { gte: prefix, lt: prefixEnd(prefix) };
    for (const [key, v] of this.kv.iterateSync(range)) {
      // every entry read counts, those outside [from, to] too: the work stays bounded
      if (++read > maxEntries) {
        truncated = true;
        break;
      }
      const height = eventIndexKeyHeight(key);
      if (height < from || height > to) continue;
      for (const index of decodeEventTxIndexes(v)) found.push({ height, index });
    }
    if (value === undefined) found.sort((a, b) => a.height - b.height || a.index - b.index);
    return { locations: dedupe(found), truncated };
  }

  /**
   * The first height whose EVM txs are in the address index (lower heights were stored before the
   * index existed, or are pruned, or lie below a state-sync snapshot); undefined while no block was
   * stored with it.
   */
  addressesIndexedSince(): number | undefined {
    return this.addressesIndexedFrom;
  }

  /**
   * An address's txs in the address index, newest first from height `below - 1` down (`direction`
   * 'before') or oldest first from `above + 1` up ('after'): at least `minTxs` of them when there are,
   * and then the rest of the last block read, so a page never splits a block. Reads one key range:
   * the work is the page's size, not the address's history.
   */
  appearancesPage(
    address: Uint8Array,
    direction: 'before' | 'after',
    height: number,
    minTxs: number,
  ): AppearancePage {
    this.assertOpen();
    const txs: AppearancePage['txs'] = [];
    const range =
      direction === 'before'
        ? {
            gte: appearanceKey(address, 0, 0),
            lt: appearanceKey(address, Math.max(height, 0), 0),
            reverse: true,
          }
        : {
            gte: appearanceKey(address, height + 1, 0),
            lt: appearanceKey(address, Number.MAX_SAFE_INTEGER, 0),
          };
    for (const [key, value] of this.kv.iterateSync(range)) {
      const a = decodeAppearance(key, value);
      if (txs.length >= minTxs && a.height !== txs[txs.length - 1].height) return { txs, reachedEnd: false };
      txs.push({ height: a.height, txIndex: a.txIndex, flags: a.flags });
    }
    return { txs, reachedEnd: true };
  }

  /** The address's first `max` appearances in the index with any of `flags` (e.g. APPEARANCE.created). */
  appearancesWith(address: Uint8Array, flags: number, max: number): Appearance[] {
    this.assertOpen();
    const found: Appearance[] = [];
    const range = appearanceRange(address, 0, Number.MAX_SAFE_INTEGER - 1);
    for (const [key, value] of this.kv.iterateSync(range)) {
      const a = decodeAppearance(key, value);
      if (a.flags & flags && found.push(a) >= max) break;
    }
    return found;
  }

  /**
   * The tx `sender` sent with `nonce`, found in the index's sender entries (their nonces rise with
   * height): a bisection over heights, each probe one seek to the first sender entry at or above
   * it. Undefined when no indexed tx of the sender has that nonce.
   */
  txBySenderAndNonce(sender: Uint8Array, nonce: bigint): Appearance | undefined {
    this.assertOpen();
    if (this.latest === undefined) return undefined;
    // the first sender entry at or above height h (with every sender entry of its height)
    const probe = (h: number): Appearance[] => {
      const found: Appearance[] = [];
      for (const [key, value] of this.kv.iterateSync(
        appearanceRange(sender, h, Number.MAX_SAFE_INTEGER - 1),
      )) {
        const a = decodeAppearance(key, value);
        if (found.length > 0 && a.height !== found[0].height) break;
        if (a.flags & APPEARANCE.sender && a.nonce !== undefined) found.push(a);
      }
      return found;
    };
    let lo = 0;
    let hi = this.latest;
    while (lo <= hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const at = probe(mid);
      if (at.length === 0) {
        hi = mid - 1;
        continue;
      }
      const hit = at.find((a) => a.nonce === nonce);
      if (hit) return hit;
      if (at[0].nonce! > nonce) hi = mid - 1;
      else lo = at[0].height + 1;
    }
    return undefined;
  }

  /**
   * eth_getLogs over [fromBlock, toBlock] (clamped to the stored range): logs in block and logIndex
   * order, at most `limit`, with `limitExceeded` telling the caller that more matched.
   */
  getLogs(query: LogQuery): LogQueryResult {
    this.assertOpen();
    const { fromBlock, toBlock } = query;
    const limit = query.limit ?? DEFAULT_LOG_LIMIT;
    if (!Number.isSafeInteger(fromBlock) || !Number.isSafeInteger(toBlock) || fromBlock < 0 || toBlock < 0) {
      throw new InvalidLogQueryError(
        `log query range [${fromBlock}, ${toBlock}] must be non-negative integers`,
      );
    }
    if (fromBlock > toBlock)
      throw new InvalidLogQueryError(`log query fromBlock ${fromBlock} is after toBlock ${toBlock}`);
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new InvalidLogQueryError(`log query limit ${limit} must be a positive integer`);
    const fromLogIndex = query.fromLogIndex ?? 0;
    if (!Number.isSafeInteger(fromLogIndex) || fromLogIndex < 0)
      throw new InvalidLogQueryError(`log query fromLogIndex ${fromLogIndex} must be a non-negative integer`);
    // validates addresses and topics even when the store is empty
    compileLogFilter(query.addresses, query.topics);
    if (this.latest === undefined || this.earliest === undefined) return { logs: [], limitExceeded: false };
    const from = Math.max(fromBlock, this.earliest);
    const to = Math.min(toBlock, this.latest);
    if (from > to) return { logs: [], limitExceeded: false };
    // One read transaction for the whole query: a concurrent truncate cannot tear the result.
    const snap = this.kv.snapshot() as ReturnType<KVStore['snapshot']> & SyncReader;
    try {
      return queryLogs(snap, {
        from,
        to,
        addresses: query.addresses ?? [],
        topics: query.topics ?? [],
        limit,
        // a clamped start is past fromBlock: nothing of fromBlock is read, so nothing to skip
        fromLogIndex: from === fromBlock ? fromLogIndex : 0,
        window: this.logIndexWindow,
      });
    } finally {
      snap.release();
    }
  }

  /** Waits for pending writes, closes the database and releases the directory lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.writing;
    this.closed = true;
    try {
      await this.kv.close();
    } finally {
      this.lock?.release();
    }
  }
}

/** The smallest key above every key starting with `prefix` (prefixes here never end in 0xff…). */
function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice();
  let i = end.length - 1;
  while (i >= 0 && end[i] === 0xff) i--;
  end[i]++;
  return end.subarray(0, i + 1);
}

function dedupe(sorted: TxLocation[]): TxLocation[] {
  return sorted.filter(
    (l, i) => i === 0 || l.height !== sorted[i - 1].height || l.index !== sorted[i - 1].index,
  );
}

function assertHeightArg(height: number, what: string): void {
  if (!Number.isSafeInteger(height) || height < 0) {
    throw new InvalidBlockDataError(`block store ${what}: height ${height} must be a non-negative integer`);
  }
}
