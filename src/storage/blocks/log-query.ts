/**
 * eth_getLogs execution. A filter with at least one address or topic constraint is answered from
 * the logs index (log-index.ts): per window of heights, each constraint group (the addresses, or the
 * OR-list of one topic position) yields the blocks and receipts holding one of its values; the
 * groups are intersected, and only the surviving receipts are read and matched exactly. A filter
 * without constraints wants every log, so it walks the block blooms only to skip log-less blocks.
 */
import type { KVReader } from '../kv/types.ts';
import { heightKey, P_BLOOM, readHeightAt, receiptKey } from './keys.ts';
import { decodeTxIndexes, KIND_ADDRESS, KIND_TOPIC0, logIndexKey, logIndexPrefix } from './log-index.ts';
import { compileLogFilter, type CompiledLogFilter } from './log-filter.ts';
import { scanReceiptLogs } from './receipt-codec.ts';
import type { BlockLog, Log, LogQueryResult } from './types.ts';

export type SyncReader = Required<Pick<KVReader, 'getSync' | 'iterateSync'>>;

/** Heights per index window: bounds memory on long ranges and lets a met limit stop early. */
export const DEFAULT_LOG_INDEX_WINDOW = 1024;

export interface ResolvedLogQuery {
  from: number;
  to: number;
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
  limit: number;
  /** Logs of `from` with a lower logIndex are skipped (a reader resuming inside that block). */
  fromLogIndex?: number;
  /** Heights per index window (DEFAULT_LOG_INDEX_WINDOW). */
  window?: number;
}

class Collector {
  readonly logs: BlockLog[] = [];
  private readonly found: Log[] = [];
  private readonly limit: number;
  private readonly filter: CompiledLogFilter;
  private readonly skipHeight: number;
  private readonly skipBelow: number;
  exceeded = false;

  constructor(filter: CompiledLogFilter, limit: number, skipHeight: number, skipBelow: number) {
    this.filter = filter;
    this.limit = limit;
    this.skipHeight = skipHeight;
    this.skipBelow = skipBelow;
  }

  /** Matches one receipt record; false once more than `limit` logs matched. */
  receipt(rec: Uint8Array, blockHeight: number, blockHash: Uint8Array): boolean {
    this.found.length = 0;
    scanReceiptLogs(rec, this.filter.match, this.found);
    for (const log of this.found) {
      if (blockHeight === this.skipHeight && log.logIndex < this.skipBelow) continue;
      if (this.logs.length === this.limit) {
        this.exceeded = true;
        return false;
      }
      this.logs.push({ ...log, blockHeight, blockHash });
    }
    return true;
  }
}

export function queryLogs(reader: SyncReader, q: ResolvedLogQuery): LogQueryResult {
  const filter = compileLogFilter(q.addresses, q.topics);
  const out = new Collector(filter, q.limit, q.from, q.fromLogIndex ?? 0);
  const groups: Uint8Array[][] = [];
  if (q.addresses.length > 0) groups.push(q.addresses.map((a) => logIndexPrefix(KIND_ADDRESS, a)));
  q.topics.forEach((pos, i) => {
    if (pos && pos.length > 0) groups.push(pos.map((t) => logIndexPrefix(KIND_TOPIC0 + i, t)));
  });
  if (groups.length === 0) scanAll(reader, q, out);
  else {
    const window = q.window ?? DEFAULT_LOG_INDEX_WINDOW;
    for (let a = q.from; a <= q.to; a += window) {
      if (!scanIndexed(reader, groups, a, Math.min(q.to, a + window - 1), out)) break;
    }
  }
  return { logs: out.logs, limitExceeded: out.exceeded };
}

function scanAll(reader: SyncReader, q: ResolvedLogQuery, out: Collector): void {
  const range = { gte: heightKey(P_BLOOM, q.from), lt: heightKey(P_BLOOM, q.to + 1) };
  for (const [key, rec] of reader.iterateSync(range)) {
    if (rec.length <= 32) continue; // the block has no logs
    const height = readHeightAt(key, 1);
    const blockHash = rec.subarray(0, 32);
    for (const [, r] of reader.iterateSync({ gte: receiptKey(height, 0), lt: receiptKey(height + 1, 0) })) {
      if (!out.receipt(r, height, blockHash)) return;
    }
  }
}

/**
 * Height → the index values (encoded txIndex lists) of one group's members, within [a, b]. Values
 * are decoded later and only for heights every group has: a popular topic's long lists are skipped
 * when a rarer constraint rules their blocks out.
 */
function groupHits(
  reader: SyncReader,
  members: Uint8Array[],
  a: number,
  b: number,
): Map<number, Uint8Array[]> {
  const hits = new Map<number, Uint8Array[]>();
  for (const prefix of members) {
    const range = { gte: logIndexKey(prefix, a), lt: logIndexKey(prefix, b + 1) };
    for (const [key, value] of reader.iterateSync(range)) {
      const height = readHeightAt(key, prefix.length);
      const prev = hits.get(height);
      if (prev) prev.push(value);
      else hits.set(height, [value]);
    }
  }
  return hits;
}

function txIndexesOf(values: Uint8Array[]): Set<number> {
  const out = new Set<number>();
  for (const v of values) for (const tx of decodeTxIndexes(v)) out.add(tx);
  return out;
}

/** Returns false when the limit was exceeded. */
function scanIndexed(
  reader: SyncReader,
  groups: Uint8Array[][],
  a: number,
  b: number,
  out: Collector,
): boolean {
  // Smallest group first: later groups only have to confirm its heights.
  const hits = groups.map((g) => groupHits(reader, g, a, b)).sort((x, y) => x.size - y.size);
  const heights = [...hits[0].keys()].filter((h) => hits.every((g) => g.has(h))).sort((x, y) => x - y);
  for (const height of heights) {
    let txs = txIndexesOf(hits[0].get(height)!);
    for (let g = 1; g < hits.length && txs.size > 0; g++) {
      const other = txIndexesOf(hits[g].get(height)!);
      txs = new Set([...txs].filter((t) => other.has(t)));
    }
    if (txs.size === 0) continue;
    const blockHash = reader.getSync(heightKey(P_BLOOM, height))?.subarray(0, 32);
    if (!blockHash) continue;
    for (const tx of [...txs].sort((x, y) => x - y)) {
      const rec = reader.getSync(receiptKey(height, tx));
      if (rec && !out.receipt(rec, height, blockHash)) return false;
    }
  }
  return true;
}
