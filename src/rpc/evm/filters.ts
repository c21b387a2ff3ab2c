/**
 * Polling filters (their lifecycle as geth implements it):
 *   eth_newFilter / eth_newBlockFilter / eth_newPendingTransactionFilter → a filter id
 *   eth_getFilterChanges → what happened since the previous poll (or creation)
 *   eth_getFilterLogs    → every log the filter's criteria match, as eth_getLogs would answer
 *   eth_uninstallFilter  → true, or false when the id is unknown
 * Unknown and expired ids are -32000 `filter not found` (geth's wording).
 *
 * Block and log filters report by height: a poll covers the heights after the filter's cursor up to
 * the latest, so no block is missed even if the node was busy when it was committed. One poll covers
 * at most `max_blocks_for_log` heights and `max_log_no_block` logs; what is left over comes with the
 * next poll, so the limits never drop a log. A log filter's cursor is a height and a log index: a
 * block with more matching logs than `max_log_no_block` is reported over several polls, each one
 * carrying on after the last log the previous one gave.
 */
import type { LogFilter } from '../codecs/filter.ts';
import { formatLog } from '../codecs/format.ts';
import { hash32 } from '../codecs/hex.ts';
import { CodecError } from '../codecs/errors.ts';
import { p, type ParamCodec } from '../codecs/params.ts';
import type { BlockContext } from '../codecs/views.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { LimitExceededError } from '../server/errors.ts';
import type { ChainReader, EvmBackend, EvmRpcOptions, LogMatch } from './backend.ts';
import { InvalidBlockRangeError, logMethods } from './logs.ts';
import type { Resolver } from './resolve.ts';
import { type Filter, FilterNotFoundError, type FilterStore } from './filters-store.ts';

/** A filter id: geth accepts any string and answers `filter not found` for an unknown one. */
export const filterId: ParamCodec<string> = {
  optional: false,
  parse(v) {
    if (typeof v !== 'string') throw new CodecError('filter id must be a string');
    return v;
  },
};

/** The numeric bounds of a criteria's block range; tags other than `earliest` do not bound a live filter. */
export function numericBound(ref: LogFilter['fromBlock']): number | undefined {
  if (!ref) return undefined;
  if (ref.kind === 'number') return ref.height;
  return ref.tag === 'earliest' ? 0 : undefined;
}

/** Refuses at creation a numeric range that eth_getLogs would refuse, so the error comes early. */
export function checkRange(criteria: LogFilter, options: EvmRpcOptions): void {
  const from = criteria.fromBlock?.kind === 'number' ? criteria.fromBlock.height : undefined;
  const to = criteria.toBlock?.kind === 'number' ? criteria.toBlock.height : undefined;
  if (from === undefined || to === undefined) return;
  if (from > to)
    throw new InvalidBlockRangeError(`invalid block range params: fromBlock ${from} is after toBlock ${to}`);
  if (to - from + 1 > options.maxBlocksForLog) {
    throw new LimitExceededError(
      `query exceeds max block range ${options.maxBlocksForLog} (max_blocks_for_log): asked for ${to - from + 1} blocks`,
    );
  }
}

/**
 * How far a reader of logs got: every log up to block `height` is reported, and in block `height + 1`
 * the logs whose logIndex is below `logIndex`.
 */
export interface LogCursor {
  height: number;
  logIndex: number;
}

export interface LogWindow {
  logs: LogMatch[];
  /** The new cursor: right after the last log given, or at the last height covered. */
  next: LogCursor;
}

/**
 * Logs matching `criteria` after the cursor `after` up to `latest`, within the criteria's numeric
 * bounds and the per-poll limits, in block and logIndex order. Shared by log filters and `logs`
 * subscriptions: when more match than `max_log_no_block`, the window ends after its last log (inside
 * a block if need be) and a window from `next` carries on, so no reader is stuck on a busy block.
 */
export function logsAfter(
  chain: ChainReader,
  options: EvmRpcOptions,
  criteria: LogFilter,
  after: LogCursor,
  latest: number,
): LogWindow {
  if (latest <= after.height) return { logs: [], next: after };
  // A blockHash filter names one block that is already committed: nothing new can match it.
  if (criteria.blockHash) return { logs: [], next: { height: latest, logIndex: 0 } };
  const through = Math.min(latest, after.height + options.maxBlocksForLog);
  const covered = { height: through, logIndex: 0 };
  const from = Math.max(after.height + 1, numericBound(criteria.fromBlock) ?? 0);
  const to = Math.min(through, numericBound(criteria.toBlock) ?? Number.MAX_SAFE_INTEGER);
  if (from > to) return { logs: [], next: covered };
  const { logs, limitExceeded } = chain.getLogs({
    fromBlock: from,
    toBlock: to,
    // the cursor's log index is within block after.height + 1, which a numeric fromBlock may exclude
    fromLogIndex: from === after.height + 1 ? after.logIndex : 0,
    addresses: criteria.addresses,
    topics: criteria.topics,
    limit: options.maxLogNoBlock,
  });
  if (!limitExceeded) return { logs, next: covered };
  const last = logs[logs.length - 1];
  return { logs, next: { height: last.blockHeight - 1, logIndex: last.logIndex + 1 } };
}

/** Formats logs, looking each block's context up once (logs of one block are adjacent). */
export function formatLogs(chain: ChainReader, logs: LogMatch[]): Record<string, unknown>[] {
  let ctx: BlockContext | undefined;
  return logs.map((l) => {
    if (!ctx || ctx.height !== l.blockHeight) {
      ctx = chain.blockContext(l.blockHeight) ?? { height: l.blockHeight, hash: l.blockHash, timestamp: 0 };
    }
    return formatLog(l, ctx);
  });
}

/** A new log filter, reporting from the block after the latest; refused now if eth_getLogs would refuse its range. */
export function installLogFilter(
  store: FilterStore,
  chain: ChainReader,
  options: EvmRpcOptions,
  criteria: LogFilter,
): string {
  checkRange(criteria, options);
  return store.install({
    kind: 'logs',
    lastUsed: 0,
    cursor: chain.latestHeight(),
    cursorLogIndex: 0,
    criteria,
  });
}

/** A new block filter, reporting from the block after the latest. */
export function installBlockFilter(store: FilterStore, chain: ChainReader): string {
  return store.install({ kind: 'block', lastUsed: 0, cursor: chain.latestHeight() });
}

/**
 * A block filter's poll: the hashes of the blocks after its cursor up to `latest`, at most
 * `max_blocks_for_log` of them (the next poll carries on), moving its cursor past each one given.
 */
export function blockFilterChanges(
  f: Extract<Filter, { kind: 'block' }>,
  chain: ChainReader,
  options: EvmRpcOptions,
  latest: number,
): string[] {
  const hashes: string[] = [];
  const through = Math.min(latest, f.cursor + options.maxBlocksForLog);
  for (let h = f.cursor + 1; h <= through; h++) {
    const ctx = chain.blockContext(h);
    if (!ctx) break;
    hashes.push(hash32(ctx.hash));
    f.cursor = h;
  }
  return hashes;
}

export function filterMethods(backend: EvmBackend, resolve: Resolver, store: FilterStore): MethodTable {
  const { chain, options } = backend;
  // eth_getFilterLogs answers exactly what eth_getLogs answers for the criteria, limits included.
  const getLogs = logMethods(backend, resolve).eth_getLogs.handler as (f: LogFilter) => unknown;
  return {
    eth_newFilter: method([p.filter], (criteria) => installLogFilter(store, chain, options, criteria)),
    eth_newBlockFilter: method([], () => installBlockFilter(store, chain)),
    eth_newPendingTransactionFilter: method([], () =>
      store.install({ kind: 'pending', lastUsed: 0, next: 0 }),
    ),
    eth_uninstallFilter: method([filterId], (id) => store.uninstall(id)),
    eth_getFilterChanges: method([filterId], (id) => {
      const f = store.use(id);
      if (f.kind === 'pending') return store.takePending(f).map(hash32);
      const latest = chain.latestHeight();
      if (f.kind === 'block') return blockFilterChanges(f, chain, options, latest);
      const window = logsAfter(
        chain,
        options,
        f.criteria,
        { height: f.cursor, logIndex: f.cursorLogIndex },
        latest,
      );
      f.cursor = window.next.height;
      f.cursorLogIndex = window.next.logIndex;
      return formatLogs(chain, window.logs);
    }),
    eth_getFilterLogs: method([filterId], (id) => {
      const f = store.use(id);
      // geth: only log filters have logs; any other id is "not found" here.
      if (f.kind !== 'logs') throw new FilterNotFoundError();
      return getLogs(f.criteria);
    }),
  };
}
