/**
 * trace_filter: the traces of a block range whose addresses match, paginated by `after`/`count`.
 *
 * The transactions to replay come from a `TraceFilterSource` (a superset of those holding a match:
 * an address index may narrow it; `BlockWalkSource` walks the range's blocks and names every Ethereum
 * tx). Candidates are grouped by block and each block is replayed once, tracing only its candidates;
 * the matching traces are kept in block, tx and trace order, and the replays stop once `after + count`
 * traces matched. The range is bounded by `[evm] max_trace_filter_blocks` and must end at or below
 * the latest block; the whole filter is one trace call under `Tracing`'s limits (one deadline, one
 * concurrency slot, the lookback checked at the lowest block replayed).
 *
 * Matching is reth's (alloy's TraceFilterMatcher): an empty address list matches every address; a
 * call matches on `from`/`to`, a creation on `from`/the created address, a self-destruct on
 * `address`/`refundAddress`. With mode `union` (the default) a trace matches when its from matches or
 * its to matches, or, when only one list is given, when that one matches; with `intersection` both
 * must.
 */
import { type BlockNumberRef, parseFilterBlockNumber } from '../codecs/block-ref.ts';
import { CodecError } from '../codecs/errors.ts';
import { parseAddress, parseSmallQuantity } from '../codecs/hex.ts';
import { InvalidParamsError } from '../server/errors.ts';
import { toHex } from '../../primitives/bytes.ts';
import { ChainError } from '../../util/errors.ts';
import { Pacer } from '../../util/pace.ts';
import type { AddressHistory, ChainReader } from './backend.ts';
import type { Tracing } from './debug.ts';
import type { Resolver } from './resolve.ts';
import type { LocalizedTrace, ParityTrace, ParityTraceBackend, TraceType } from './trace-backend.ts';

export interface TraceCandidate {
  height: number;
  /** index among the block's Ethereum txs */
  evmIndex: number;
}

/** Which txs of a range may hold a trace touching the addresses (empty lists: any). */
export interface TraceFilterSource {
  /** In block order, then tx order. */
  candidates(
    fromHeight: number,
    toHeight: number,
    fromAddresses: readonly Uint8Array[],
    toAddresses: readonly Uint8Array[],
  ): Promise<TraceCandidate[]>;
}

/** Every Ethereum tx of the range's blocks, from their receipts (no address index). */
export class BlockWalkSource implements TraceFilterSource {
  private readonly chain: Pick<ChainReader, 'receipts'>;
  constructor(chain: Pick<ChainReader, 'receipts'>) {
    this.chain = chain;
  }

  async candidates(fromHeight: number, toHeight: number): Promise<TraceCandidate[]> {
    const out: TraceCandidate[] = [];
    const pace = new Pacer();
    for (let h = Math.max(fromHeight, 1); h <= toHeight; h++) {
      await pace.tick();
      const n = this.chain.receipts(h)?.length ?? 0;
      for (let i = 0; i < n; i++) out.push({ height: h, evmIndex: i });
    }
    return out;
  }
}

/** Appearances read from the index per step: a page ends at a block boundary, so it may hold more. */
const INDEX_PAGE = 1000;

/**
 * The txs the address index names for the filter's addresses: an address is indexed for every tx
 * whose call tree it is in (caller, callee, created, self-destruct beneficiary), which is every place
 * a trace can name it, so the txs it leaves out hold no matching trace. Heights the index does not
 * cover (a node state-synced or started before the index existed) are walked whole, so the answer is
 * the same with or without the index. With both lists empty every tx is a candidate: the walk.
 * `intersection` is not narrowed here (the union is a superset; the matcher decides).
 */
export class AddressIndexSource implements TraceFilterSource {
  private readonly history: AddressHistory;
  private readonly walk: TraceFilterSource;
  constructor(history: AddressHistory, walk: TraceFilterSource) {
    this.history = history;
    this.walk = walk;
  }

  async candidates(
    fromHeight: number,
    toHeight: number,
    fromAddresses: readonly Uint8Array[],
    toAddresses: readonly Uint8Array[],
  ): Promise<TraceCandidate[]> {
    if (fromAddresses.length === 0 && toAddresses.length === 0)
      return this.walk.candidates(fromHeight, toHeight, fromAddresses, toAddresses);
    const since = this.history.indexedSince();
    const indexedFrom =
      since === undefined
        ? Infinity
        : since <= this.history.chainStart
          ? fromHeight
          : Math.max(fromHeight, since);
    const out =
      indexedFrom > fromHeight
        ? await this.walk.candidates(fromHeight, Math.min(toHeight, indexedFrom - 1), [], [])
        : [];
    if (indexedFrom > toHeight) return out;
    const found = new Map<number, TraceCandidate>();
    const key = (c: TraceCandidate) => c.height * 2 ** 20 + c.evmIndex;
    const pace = new Pacer();
    const addresses = new Map([...fromAddresses, ...toAddresses].map((a) => [toHex(a), a]));
    for (const address of addresses.values()) {
      let after = indexedFrom - 1;
      for (;;) {
        await pace.tick();
        const page = this.history.page(address, 'after', after, INDEX_PAGE);
        for (const tx of page.txs) if (tx.height <= toHeight) found.set(key(tx), tx);
        const last = page.txs.at(-1);
        if (page.reachedEnd || !last || last.height >= toHeight) break;
        after = last.height;
      }
    }
    const indexed = [...found.values()].sort((a, b) => a.height - b.height || a.evmIndex - b.evmIndex);
    return out.concat(indexed);
  }
}

export interface TraceFilter {
  fromBlock?: BlockNumberRef;
  toBlock?: BlockNumberRef;
  fromAddress: Uint8Array[];
  toAddress: Uint8Array[];
  after: number;
  count?: number;
  mode: 'union' | 'intersection';
}

const FIELDS = ['fromBlock', 'toBlock', 'fromAddress', 'toAddress', 'after', 'count', 'mode'];

function addressList(v: unknown, name: string): Uint8Array[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new CodecError(`${name} must be an array of addresses`);
  return v.map((a, i) => {
    try {
      return parseAddress(a);
    } catch (err) {
      if (err instanceof CodecError) throw new CodecError(`${name}[${i}]: ${err.message}`);
      throw err;
    }
  });
}

const count = (v: unknown, name: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  try {
    return parseSmallQuantity(v);
  } catch (err) {
    if (err instanceof CodecError) throw new CodecError(`${name}: ${err.message}`);
    throw err;
  }
};

export function parseTraceFilter(v: unknown): TraceFilter {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new CodecError(
      'want a trace filter object {fromBlock, toBlock, fromAddress, toAddress, after, count}',
    );
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!FIELDS.includes(k))
      throw new CodecError(`unknown field ${JSON.stringify(k)} in trace filter: want ${FIELDS.join(', ')}`);
  const block = (name: 'fromBlock' | 'toBlock') => {
    const b = o[name];
    if (b === undefined || b === null) return undefined;
    try {
      return parseFilterBlockNumber(b);
    } catch (err) {
      if (err instanceof CodecError) throw new CodecError(`${name}: ${err.message}`);
      throw err;
    }
  };
  const mode = o.mode ?? 'union';
  if (mode !== 'union' && mode !== 'intersection')
    throw new CodecError(`mode: want "union" or "intersection", got ${JSON.stringify(mode)}`);
  return {
    fromBlock: block('fromBlock'),
    toBlock: block('toBlock'),
    fromAddress: addressList(o.fromAddress, 'fromAddress'),
    toAddress: addressList(o.toAddress, 'toAddress'),
    after: count(o.after, 'after') ?? 0,
    count: count(o.count, 'count'),
    mode,
  };
}

/** reth's TraceFilterMatcher (see the file comment). */
export function traceMatcher(f: Pick<TraceFilter, 'fromAddress' | 'toAddress' | 'mode'>) {
  const from = new Set(f.fromAddress.map((a) => '0x' + toHex(a)));
  const to = new Set(f.toAddress.map((a) => '0x' + toHex(a)));
  const has = (set: Set<string>, a: string | undefined) => set.size === 0 || (a !== undefined && set.has(a));
  return (t: ParityTrace): boolean => {
    let fromMatches: boolean;
    let toMatches: boolean;
    if (t.type === 'create') {
      fromMatches = has(from, t.action.from);
      const created = t.result?.address;
      toMatches = created !== undefined ? has(to, created) : to.size === 0;
    } else if (t.type === 'suicide') {
      fromMatches = has(from, t.action.address);
      toMatches = has(to, t.action.refundAddress);
    } else {
      fromMatches = has(from, t.action.from);
      toMatches = has(to, t.action.to);
    }
    if (f.mode === 'intersection') return fromMatches && toMatches;
    if (from.size === 0) return toMatches;
    if (to.size === 0) return fromMatches;
    return fromMatches || toMatches;
  };
}

export interface TraceFilterDeps {
  tracing: Tracing;
  backend: ParityTraceBackend;
  resolve: Resolver;
  chain: ChainReader;
  source: TraceFilterSource;
  /** `[evm] max_trace_filter_blocks` */
  maxBlocks: number;
}

const TRACE_ONLY: ReadonlySet<TraceType> = new Set(['trace']);

export async function runTraceFilter(f: TraceFilter, d: TraceFilterDeps): Promise<LocalizedTrace[]> {
  const latest = d.chain.latestHeight();
  const from = f.fromBlock ? d.resolve.number(f.fromBlock) : 0;
  const to = f.toBlock ? d.resolve.number(f.toBlock) : latest;
  if (from > to) throw new InvalidParamsError(`invalid argument 0: fromBlock ${from} is after toBlock ${to}`);
  if (to > latest)
    throw new ChainError('TRACE_BLOCK_NOT_FOUND', `toBlock ${to} is beyond the latest block ${latest}`);
  const span = to - from + 1;
  if (span > d.maxBlocks)
    throw new ChainError(
      'TRACE_RANGE_TOO_WIDE',
      `trace_filter range ${from}..${to} spans ${span} blocks, more than max_trace_filter_blocks = ${d.maxBlocks}; narrow fromBlock/toBlock`,
    );
  d.resolve.assertBlockRetained(from);
  if (f.count === 0) return [];
  const candidates = await d.source.candidates(from, to, f.fromAddress, f.toAddress);
  if (candidates.length === 0) return [];
  const byBlock = new Map<number, Set<number>>();
  for (const c of candidates) {
    let s = byBlock.get(c.height);
    if (!s) byBlock.set(c.height, (s = new Set()));
    s.add(c.evmIndex);
  }
  const heights = [...byBlock.keys()].sort((a, b) => a - b);
  const matches = traceMatcher(f);
  const wanted = f.count === undefined ? Infinity : f.after + f.count;
  return d.tracing.limited(heights[0], {}, async (timeoutMs) => {
    const started = performance.now();
    const out: LocalizedTrace[] = [];
    let seen = 0;
    for (const h of heights) {
      let left = 0;
      if (timeoutMs > 0) {
        left = timeoutMs - (performance.now() - started);
        if (left <= 0) throw new ChainError('TRACE_TIMEOUT', 'execution timeout');
      }
      const only = byBlock.get(h)!;
      const replayed = await d.backend.replayBlock(h, TRACE_ONLY, left, {
        only,
        lastEvmIndex: Math.max(...only),
      });
      for (const t of replayed) {
        if (!('traces' in t)) continue;
        for (const trace of t.traces) {
          if (!matches(trace)) continue;
          if (seen++ < f.after) continue;
          out.push(trace);
          if (seen >= wanted) return out;
        }
      }
    }
    return out;
  });
}
