/**
 * The chain_/chain2_ block, tx, receipt, log and filter methods over the synthetic views (views.ts).
 * Heights are resolved exactly as eth_ resolves them (rpc/evm Resolver: the watermark, pruned heights),
 * unknown blocks and txs answer null as in eth_; the chain_ filters live in their own FilterStore, so
 * an eth_ filter id is unknown to chain_getFilterChanges and the other way round.
 */
import type { BlockRef } from '../../codecs/block-ref.ts';
import { CodecError } from '../../codecs/errors.ts';
import type { LogFilter } from '../../codecs/filter.ts';
import { formatPendingTx } from '../../codecs/format.ts';
import { hash32, quantity } from '../../codecs/hex.ts';
import { p, type ParamCodec } from '../../codecs/params.ts';
import {
  blockFilterChanges,
  filterId,
  installBlockFilter,
  installLogFilter,
  logsAfter,
  numericBound,
} from '../../evm/filters.ts';
import { FilterNotFoundError, type FilterStore } from '../../evm/filters-store.ts';
import { logRange } from '../../evm/logs.ts';
import type { Resolver } from '../../evm/resolve.ts';
import { method, type MethodTable } from '../../server/dispatcher.ts';
import { LimitExceededError } from '../../server/errors.ts';
import { ChainError } from '../../../util/errors.ts';
import type { SyntheticBackend } from './backend.ts';
import {
  assemble,
  findByHash,
  formatEntryReceipt,
  formatEntryTx,
  formatLogAt,
  formatSyntheticBlock,
  isFailed,
  logMatches,
  VIEWS,
  type ViewKind,
} from './views.ts';

/** chain_getTransactionReceiptExcludeTraceFail for a tx that was included but never executed. */
export class FailedBeforeExecutionError extends ChainError {
  constructor(hash: Uint8Array, height: number) {
    super(
      'LEGACY_TX_FAILED_BEFORE_EXECUTION',
      `transaction ${hash32(hash)} was included in block ${height} but failed before execution (nonce consumed, nothing executed), so it has no trace`,
    );
  }
}

/** The trace variants without the debug block tracer (debug_traceBlockBy*). */
export class TracerUnavailableError extends ChainError {
  constructor(methodName: string) {
    super(
      'LEGACY_TRACER_UNAVAILABLE',
      `${methodName} needs the debug block tracer (debug_traceBlockByNumber / debug_traceBlockByHash), which this node does not provide`,
    );
  }
}

export class BlockNotFoundError extends ChainError {
  constructor(what: string) {
    super('LEGACY_BLOCK_NOT_FOUND', `block ${what} not found`);
  }
}

const byHash = (hash: Uint8Array): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

export interface SyntheticLive {
  /** The chain_ filters (a FilterStore of their own, not eth_'s). */
  filters?: FilterStore;
}

export function syntheticMethods(
  backend: SyntheticBackend,
  resolve: Resolver,
  live: SyntheticLive = {},
): MethodTable {
  const { chain, options } = backend;
  /** A debug_trace* config, decoded by the tracer's own rules (so both answer the same -32602). */
  const traceConfig: ParamCodec<unknown> = {
    optional: true,
    parse(v) {
      if (v === undefined || v === null) return undefined;
      if (!backend.tracer) {
        if (typeof v !== 'object' || Array.isArray(v)) throw new CodecError('trace config must be an object');
        return v;
      }
      return backend.tracer.parseConfig(v);
    },
  };

  const blockAt = async (ref: BlockRef, kind: ViewKind) => {
    const h = resolve.lookup(ref);
    return h === undefined ? undefined : assemble(backend, h, kind);
  };
  const block = async (ref: BlockRef, full: boolean, kind: ViewKind) => {
    const b = await blockAt(ref, kind);
    return b ? formatSyntheticBlock(b, full, chain.chainId) : null;
  };
  const count = async (ref: BlockRef, kind: ViewKind) => {
    const b = await blockAt(ref, kind);
    return b ? quantity(b.entries.length) : null;
  };
  const receipts = async (ref: BlockRef, kind: ViewKind) => {
    const b = await blockAt(ref, kind);
    return b ? b.entries.map((e) => formatEntryReceipt(e, b.view)) : null;
  };
  const txAt = async (ref: BlockRef, index: number) => {
    const b = await blockAt(ref, VIEWS.chain);
    const e = b?.entries[index];
    return b && e ? formatEntryTx(e, b.view, chain.chainId) : null;
  };

  /** The height of a mined tx (EVM or Cosmos-originated) under the watermark. */
  const located = (hash: Uint8Array): number | undefined => {
    const h = chain.txLocation(hash)?.height ?? backend.cosmosTxLocation(hash)?.height;
    if (h === undefined || h > chain.latestHeight()) return undefined;
    resolve.assertBlockRetained(h);
    return h;
  };
  const txBlock = async (hash: Uint8Array, kind: ViewKind) => {
    const h = located(hash);
    return h === undefined ? undefined : assemble(backend, h, kind);
  };

  // ---- logs -------------------------------------------------------------------------------------

  /** The view's logs of the blocks at `heights` (ascending) that match `f`, with where each one is. */
  const placedLogsOf = async (heights: Iterable<number>, f: LogFilter) => {
    const out: { height: number; logIndex: number; json: Record<string, unknown> }[] = [];
    for (const h of heights) {
      const b = await assemble(backend, h, VIEWS.chain);
      if (!b) continue;
      for (const e of b.entries)
        for (const l of e.logs)
          if (logMatches(l, f)) out.push({ height: h, logIndex: l.logIndex, json: formatLogAt(l, b.view) });
    }
    return out;
  };
  const logsOf = async (heights: Iterable<number>, f: LogFilter) =>
    (await placedLogsOf(heights, f)).map((l) => l.json);

  /**
   * Heights in [from, to] with a matching log: the EVM log index narrows the EVM side (and applies
   * the eth_ limits), the backend names the heights whose Cosmos txs carry synthetic logs.
   */
  const candidateHeights = (f: LogFilter, from: number, to: number, limit: number) => {
    const { logs, limitExceeded } = chain.getLogs({
      fromBlock: from,
      toBlock: to,
      addresses: f.addresses,
      topics: f.topics,
      limit,
    });
    const heights = new Set(logs.map((l) => l.blockHeight));
    for (const h of backend.syntheticLogHeights(from, to)) heights.add(h);
    return { heights: [...heights].sort((a, b) => a - b), limitExceeded };
  };

  /** chain_getLogs: eth_getLogs's range rules and limits, over the chain_ view of each block. */
  const getLogs = async (f: LogFilter) => {
    const range = logRange(backend, resolve, f);
    if (!range) return [];
    const { from, to, limit } = range;
    const { heights, limitExceeded } = candidateHeights(f, from, to, limit);
    if (limitExceeded) {
      throw new LimitExceededError(
        `query returned more than ${options.maxLogNoBlock} results (max_log_no_block); give a toBlock or a narrower range`,
      );
    }
    return logsOf(heights, f);
  };

  // ---- tables -----------------------------------------------------------------------------------

  const blockPair = (prefix: string, suffix: string, kind: ViewKind): MethodTable => ({
    [`${prefix}_getBlockByNumber${suffix}`]: method([p.blockNumber, p.bool], (ref, full) =>
      block(ref, full, kind),
    ),
    [`${prefix}_getBlockByHash${suffix}`]: method([p.hash, p.bool], (hash, full) =>
      block(byHash(hash), full, kind),
    ),
  });

  const tables: MethodTable = {
    ...blockPair('chain', '', VIEWS.chain),
    ...blockPair('chain', 'ExcludeTraceFail', VIEWS.chainExcludeTraceFail),
    ...blockPair('chain2', '', VIEWS.chain2),
    ...blockPair('chain2', 'ExcludeTraceFail', VIEWS.chain2ExcludeTraceFail),

    chain_getBlockReceipts: method([p.blockRef], (ref) => receipts(ref, VIEWS.chain)),
    chain2_getBlockReceipts: method([p.blockRef], (ref) => receipts(ref, VIEWS.chain2)),
    chain_getBlockTransactionCountByNumber: method([p.blockNumber], (ref) => count(ref, VIEWS.chain)),
    chain_getBlockTransactionCountByHash: method([p.hash], (hash) => count(byHash(hash), VIEWS.chain)),
    chain2_getBlockTransactionCountByNumber: method([p.blockNumber], (ref) => count(ref, VIEWS.chain2)),
    chain2_getBlockTransactionCountByHash: method([p.hash], (hash) => count(byHash(hash), VIEWS.chain2)),

    chain_getTransactionByBlockNumberAndIndex: method([p.blockNumber, p.index], txAt),
    chain_getTransactionByBlockHashAndIndex: method([p.hash, p.index], (hash, index) =>
      txAt(byHash(hash), index),
    ),
    chain_getTransactionByHash: method([p.hash], async (hash) => {
      const b = await txBlock(hash, VIEWS.chain);
      const e = b && findByHash(b, hash);
      if (b && e) return formatEntryTx(e, b.view, chain.chainId);
      const pending = backend.pool?.get(hash);
      return pending ? formatPendingTx(pending) : null;
    }),
    chain_getTransactionReceipt: method([p.hash], async (hash) => {
      const b = await txBlock(hash, VIEWS.chain);
      const e = b && findByHash(b, hash);
      return b && e ? formatEntryReceipt(e, b.view) : null;
    }),
    chain_getTransactionReceiptExcludeTraceFail: method([p.hash], async (hash) => {
      const b = await txBlock(hash, VIEWS.chainExcludeTraceFail);
      if (!b) return null;
      if (isFailed(b, hash)) throw new FailedBeforeExecutionError(hash, b.view.height);
      const e = findByHash(b, hash);
      return e ? formatEntryReceipt(e, b.view) : null;
    }),

    chain_getLogs: method([p.filter], getLogs),

    chain_traceBlockByNumberExcludeTraceFail: method([p.blockNumber, traceConfig], async (ref, config) => {
      const h = resolve.lookup(ref);
      if (h === undefined) throw new BlockNotFoundError(ref.kind === 'number' ? `#${ref.height}` : ref.tag);
      return traceExcludingFailed('chain_traceBlockByNumberExcludeTraceFail', h, config);
    }),
    chain_traceBlockByHashExcludeTraceFail: method([p.hash, traceConfig], async (hash, config) => {
      const h = resolve.lookup(byHash(hash));
      if (h === undefined) throw new BlockNotFoundError(hash32(hash));
      return traceExcludingFailed('chain_traceBlockByHashExcludeTraceFail', h, config);
    }),

    ...(live.filters ? filterTable(live.filters) : {}),
  };

  async function traceExcludingFailed(name: string, height: number, config: unknown) {
    if (!backend.tracer) throw new TracerUnavailableError(name);
    const [traces, b] = await Promise.all([
      backend.tracer.traceBlock(height, config),
      assemble(backend, height, VIEWS.chainExcludeTraceFail),
    ]);
    if (!b) throw new BlockNotFoundError(`#${height}`);
    return traces.filter((t) => !b.failed.has(t.txHash.replace(/^0x/, '').toLowerCase()));
  }

  function filterTable(store: FilterStore): MethodTable {
    return {
      chain_newFilter: method([p.filter], (criteria) => installLogFilter(store, chain, options, criteria)),
      chain_newBlockFilter: method([], () => installBlockFilter(store, chain)),
      chain_uninstallFilter: method([filterId], (id) => store.uninstall(id)),
      chain_getFilterChanges: method([filterId], async (id) => {
        const f = store.use(id);
        const latest = chain.latestHeight();
        if (f.kind === 'pending') return store.takePending(f).map(hash32);
        if (f.kind === 'block') return blockFilterChanges(f, chain, options, latest);
        // The cursor's log index counts the chain_ view's logs (EVM and synthetic), so the EVM window
        // only names candidate heights: each is rendered whole, from its first log.
        const after = f.cursor;
        const window = logsAfter(chain, options, f.criteria, { height: after, logIndex: 0 }, latest);
        // a window cut inside a block still names it, and that block is rendered whole below
        const through = window.next.logIndex > 0 ? window.next.height + 1 : window.next.height;
        const heights = new Set(window.logs.map((l) => l.blockHeight));
        const from = Math.max(after + 1, numericBound(f.criteria.fromBlock) ?? 0);
        const to = Math.min(through, numericBound(f.criteria.toBlock) ?? Number.MAX_SAFE_INTEGER);
        if (!f.criteria.blockHash && from <= to)
          for (const h of backend.syntheticLogHeights(from, to)) heights.add(h);
        const logs = (
          await placedLogsOf(
            [...heights].sort((a, b) => a - b),
            f.criteria,
          )
        ).filter((l) => l.height !== after + 1 || l.logIndex >= f.cursorLogIndex);
        if (logs.length > options.maxLogNoBlock) {
          // more than one poll may carry: stop right after the last log given, inside its block
          logs.length = options.maxLogNoBlock;
          const last = logs[logs.length - 1];
          f.cursor = last.height - 1;
          f.cursorLogIndex = last.logIndex + 1;
        } else if (through > after) {
          f.cursor = through;
          f.cursorLogIndex = 0;
        }
        return logs.map((l) => l.json);
      }),
      chain_getFilterLogs: method([filterId], (id) => {
        const f = store.use(id);
        if (f.kind !== 'logs') throw new FilterNotFoundError();
        return getLogs(f.criteria);
      }),
    };
  }

  return tables;
}
