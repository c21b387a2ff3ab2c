/**
 * eth_getLogs and its two limits, by the kind of range asked for:
 *   closed (a toBlock is given, `latest` included): at most `max_blocks_for_log` blocks, whatever
 *     the number of logs;
 *   open-ended (no toBlock: up to the head, however far): at most `max_log_no_block` matching logs,
 *     whatever the number of blocks.
 * Going over either is a -32005 error naming the limit, never a silently truncated answer. A client
 * that names its end with `toBlock: "latest"` has a closed range, as in the reference node, where
 * only an absent toBlock lifts the block limit.
 *
 * An answer whose JSON would pass `[evm] max_response_bytes` is refused (-32005 naming the key) as
 * soon as the logs gathered pass it, before it is built in full.
 */
import type { LogFilter } from '../codecs/filter.ts';
import { formatLog } from '../codecs/format.ts';
import { p } from '../codecs/params.ts';
import type { BlockContext } from '../codecs/views.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { LimitExceededError } from '../server/errors.ts';
import { RawJson } from '../server/serialize.ts';
import { ChainError } from '../../util/errors.ts';
import { Pacer } from '../../util/pace.ts';
import type { EvmBackend, LogMatch } from './backend.ts';
import { logsCacheOf } from './logs-cache.ts';
import type { Resolver } from './resolve.ts';

export class InvalidBlockRangeError extends ChainError {
  constructor(message: string) {
    super('RPC_INVALID_BLOCK_RANGE', message);
  }
}

export class UnknownBlockError extends ChainError {
  constructor() {
    super('RPC_UNKNOWN_BLOCK', 'unknown block');
  }
}

/**
 * The heights an eth_getLogs-style query covers, after geth's checks (unknown blockHash, reversed or
 * too wide a range, pruned start) and the open-ended result limit; undefined when the range is empty.
 */
export function logRange(
  { chain, options }: Pick<EvmBackend, 'chain' | 'options'>,
  resolve: Resolver,
  f: LogFilter,
): { from: number; to: number; limit: number } | undefined {
  const latest = chain.latestHeight();
  let from: number;
  let to: number;
  let limit = Number.MAX_SAFE_INTEGER;
  if (f.blockHash) {
    const h = chain.heightByHash(f.blockHash);
    if (h === undefined || h > latest) throw new UnknownBlockError();
    from = to = h;
  } else {
    from = resolve.number(f.fromBlock ?? { kind: 'tag', tag: 'latest' });
    to = resolve.number(f.toBlock ?? { kind: 'tag', tag: 'latest' });
    if (from > to)
      throw new InvalidBlockRangeError(
        `invalid block range params: fromBlock ${from} is after toBlock ${to}`,
      );
    // The block limit applies to the range asked for, so the answer does not depend on where the head
    // is; an open-ended range is bounded by its logs instead.
    if (f.toBlock !== undefined && to - from + 1 > options.maxBlocksForLog) {
      throw new LimitExceededError(
        `query exceeds max block range ${options.maxBlocksForLog} (max_blocks_for_log): asked for ${to - from + 1} blocks`,
      );
    }
    resolve.assertBlockRetained(from);
    if (f.toBlock === undefined) limit = options.maxLogNoBlock;
    to = Math.min(to, latest);
    if (from > to) return undefined;
  }
  return { from, to, limit };
}

/** A formatted log's JSON is never shorter than this (addresses, hashes and keys; no data or topics). */
const MIN_LOG_JSON = 300;
/** Logs the store is asked for at once on a range the cache does not serve. */
const PAGE_LOGS = 2_048;

export class ResponseTooLargeError extends LimitExceededError {}

function tooLarge(max: number, logs: number): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `query result too large: more than max_response_bytes = ${max} bytes ([evm] max_response_bytes) ` +
      `after ${logs} logs; ask for a narrower block range or filter by address or topics`,
  );
}

export function logMethods(backend: EvmBackend, resolve: Resolver): MethodTable {
  const { chain, options } = backend;
  const cache = logsCacheOf(chain);
  const maxBytes = options.maxResponseBytes ?? Infinity;
  const limitError = () =>
    new LimitExceededError(
      `query returned more than ${options.maxLogNoBlock} results (max_log_no_block); give a toBlock or a narrower range`,
    );
  const getLogs = async (f: LogFilter) => {
    const range = logRange(backend, resolve, f);
    if (!range) return [];
    const { from, to, limit } = range;
    const search = { fromBlock: from, toBlock: to, addresses: f.addresses, topics: f.topics, limit };
    // An open-ended range may span the whole chain: the cache would load every height of it, where
    // the store's search stops at the log limit.
    const cached = to - from < options.maxBlocksForLog ? await cache.query(search) : undefined;
    if (cached) {
      if (cached.limitExceeded) throw limitError();
      if (cached.bytes > maxBytes) throw tooLarge(maxBytes, cached.logs.length);
      return cached.logs;
    }
    // The store's search is synchronous: it is asked for a page of logs at a time (resuming after the
    // last log it gave, inside a block if need be), with a turn of the event loop between pages once a
    // few milliseconds have passed, and never for more logs than the answer's byte budget can hold, so
    // neither the time nor the memory of a wide query grows past what its answer may be.
    const pacer = new Pacer();
    const out: RawJson[] = [];
    let bytes = 2;
    let height = from;
    let logIndex = 0;
    // Logs of one block are adjacent: look each block's context up once.
    let ctx: BlockContext | undefined;
    for (;;) {
      const byCount = limit - out.length;
      const byBytes = Math.floor((maxBytes - bytes) / MIN_LOG_JSON) + 1;
      const page = Math.min(PAGE_LOGS, byCount, byBytes);
      const { logs, limitExceeded } = chain.getLogs({
        ...search,
        fromBlock: height,
        fromLogIndex: logIndex,
        limit: page,
      });
      for (const l of logs as LogMatch[]) {
        if (!ctx || ctx.height !== l.blockHeight) {
          ctx = chain.blockContext(l.blockHeight) ?? {
            height: l.blockHeight,
            hash: l.blockHash,
            timestamp: 0,
          };
        }
        const json = new RawJson(JSON.stringify(formatLog(l, ctx)));
        bytes += json.text.length + 1;
        if (bytes > maxBytes) throw tooLarge(maxBytes, out.length);
        out.push(json);
      }
      if (!limitExceeded) break;
      if (page === byCount) throw limitError();
      if (page === byBytes) throw tooLarge(maxBytes, out.length);
      const last = logs[logs.length - 1] as LogMatch;
      height = last.blockHeight;
      logIndex = last.logIndex + 1;
      await pacer.yieldIfDue();
    }
    return out;
  };
  return { eth_getLogs: method([p.filter], getLogs) };
}
