/**
 * Formatted logs of committed blocks, by height, for eth_getLogs (geth keeps such a per-block logs
 * cache in its filter system for the same reason: clients repeat range queries over the same recent
 * blocks). Blocks are final once committed (instant finality; an operator's rollback happens with the node
 * stopped), so an entry never goes stale, except on a dev chain that goes back (evm_revert): the
 * heights above its new head are dropped then.
 *
 * A query is answered from the cache when every height of its range is cached; missing heights are
 * loaded first, in chunks, with one unfiltered store query each (a block without logs is cached as
 * empty). A load stops at LOAD_LIMIT logs: the heights below the one it stopped in are complete and
 * cached, and the next load starts at that height, so busy blocks are cached a few at a time. What
 * the cache cannot keep is remembered as busy, and queries touching it go to the store's filtered
 * search: a single block with more than LOAD_LIMIT logs, and the rest of a range once one query has
 * loaded more logs than the cache holds (a busy chain never pays again for unfiltered loads it cannot
 * keep). The cache holds at most `maxLogs` logs, `maxBytes` bytes of their JSON (a log's data may be
 * large) and `maxBlocks` heights; the oldest loaded go first.
 * A log is kept as its JSON text (RawJson), shared between answers: texts cost the collector nothing
 * to walk, where 20,000 log objects cost every major collection.
 */
import { address as hexAddress, hash32 } from '../codecs/hex.ts';
import { formatLog } from '../codecs/format.ts';
import type { BlockContext } from '../codecs/views.ts';
import { Pacer } from '../../util/pace.ts';
import { RawJson } from '../server/serialize.ts';
import type { ChainReader, LogMatch, LogSearch } from './backend.ts';

interface CachedLog {
  /** What a filter is matched against. */
  address: string;
  topics: string[];
  /** The formatted log's JSON (its length is what an answer is charged). */
  json: RawJson;
}

/** A chunk of heights whose logs were too many to cache. */
const BUSY = 'busy';
type Entry = CachedLog[] | typeof BUSY;

const CHUNK = 256;
const LOAD_LIMIT = 4_096;
const EMPTY: CachedLog[] = [];

export class BlockLogsCache {
  private readonly chain: ChainReader;
  private readonly maxLogs: number;
  private readonly maxBlocks: number;
  private readonly maxBytes: number;
  private readonly blocks = new Map<number, Entry>();
  private logs = 0;
  private bytes = 0;

  constructor(chain: ChainReader, maxLogs = 20_000, maxBlocks = 200_000, maxBytes = 32 * 1024 * 1024) {
    this.chain = chain;
    this.maxLogs = maxLogs;
    this.maxBlocks = maxBlocks;
    this.maxBytes = maxBytes;
    chain.onRewind?.((height) => this.forgetAbove(height));
  }

  /** Drops the heights above `height` (rewound: they will be other blocks). */
  private forgetAbove(height: number): void {
    for (const [h, e] of this.blocks) {
      if (h <= height) continue;
      this.blocks.delete(h);
      if (e === BUSY) continue;
      this.logs -= e.length;
      for (const l of e) this.bytes -= l.json.text.length;
    }
  }

  /** What the cache holds: logs, heights, and the JSON bytes of the logs. */
  get size(): { logs: number; blocks: number; bytes: number } {
    return { logs: this.logs, blocks: this.blocks.size, bytes: this.bytes };
  }

  /**
   * The formatted logs of `search` (heights at most the latest committed one) and the length of their
   * JSON, or undefined when the range touches a busy chunk: the caller then asks the store. Loading
   * and matching yield to the event loop every few milliseconds.
   */
  async query(
    search: LogSearch,
  ): Promise<{ logs: RawJson[]; limitExceeded: boolean; bytes: number } | undefined> {
    const { fromBlock, toBlock } = search;
    const pacer = new Pacer();
    const entries: Entry[] = new Array(toBlock - fromBlock + 1);
    const loaded = { logs: 0, bytes: 0 };
    for (let h = fromBlock; h <= toBlock; h++) {
      let e = this.blocks.get(h);
      if (e === undefined) {
        this.load(h, toBlock, loaded);
        await pacer.yieldIfDue();
        e = this.blocks.get(h);
        // evicted by its own load (a cache smaller than one query): let the store answer
        if (e === undefined) return undefined;
        if (loaded.logs > this.maxLogs || loaded.bytes > this.maxBytes) {
          // More than the cache holds, so it has begun to evict this range: every query of it would
          // load it again. What is not cached of it is left to the store from now on.
          for (let k = fromBlock; k <= toBlock; k++) if (!this.blocks.has(k)) this.blocks.set(k, BUSY);
          this.evict();
          return undefined;
        }
      }
      if (e === BUSY) return undefined;
      entries[h - fromBlock] = e;
    }
    const addresses = search.addresses.length > 0 ? new Set(search.addresses.map(hexAddress)) : undefined;
    // geth's filterLogs: a null or empty position is a wildcard
    const topics = search.topics.map((alts) => (alts && alts.length > 0 ? new Set(alts.map(hash32)) : null));
    const out: RawJson[] = [];
    let bytes = 2;
    for (const logs of entries) {
      // a later load may have evicted an entry read earlier; it is still the block's logs
      for (const log of logs as CachedLog[]) {
        if (addresses && !addresses.has(log.address)) continue;
        if (!matchesTopics(log.topics, topics)) continue;
        if (out.length === search.limit) return { logs: out, limitExceeded: true, bytes };
        out.push(log.json);
        bytes += log.json.text.length + 1;
      }
      await pacer.tick();
    }
    return { logs: out, limitExceeded: false, bytes };
  }

  /**
   * Loads the chunk of heights from `from` (at most CHUNK, not past `to`, stopping at a cached one),
   * or the part of it below the height where LOAD_LIMIT logs ran out; adds what it cached to `loaded`.
   */
  private load(from: number, to: number, loaded: { logs: number; bytes: number }): void {
    let end = from;
    while (end < to && end - from + 1 < CHUNK && !this.blocks.has(end + 1)) end++;
    const { logs, limitExceeded } = this.chain.getLogs({
      fromBlock: from,
      toBlock: end,
      addresses: [],
      topics: [],
      limit: LOAD_LIMIT,
    });
    if (limitExceeded) {
      // logs come in height order: every height below the last one given has all its logs here
      const cut = logs[logs.length - 1].blockHeight;
      if (cut === from) {
        this.blocks.set(from, BUSY);
        this.evict();
        return;
      }
      end = cut - 1;
    }
    const byHeight = new Map<number, CachedLog[]>();
    let ctx: BlockContext | undefined;
    for (const l of logs) {
      if (l.blockHeight > end) break;
      if (!ctx || ctx.height !== l.blockHeight) ctx = this.context(l);
      let list = byHeight.get(l.blockHeight);
      if (!list) byHeight.set(l.blockHeight, (list = []));
      const json = formatLog(l, ctx) as { address: string; topics: string[] };
      list.push({ address: json.address, topics: json.topics, json: new RawJson(JSON.stringify(json)) });
    }
    for (let h = from; h <= end; h++) {
      const list = byHeight.get(h) ?? EMPTY;
      this.blocks.set(h, list);
      this.logs += list.length;
      loaded.logs += list.length;
      for (const l of list) {
        this.bytes += l.json.text.length;
        loaded.bytes += l.json.text.length;
      }
    }
    this.evict();
  }

  private context(l: LogMatch): BlockContext {
    return (
      this.chain.blockContext(l.blockHeight) ?? { height: l.blockHeight, hash: l.blockHash, timestamp: 0 }
    );
  }

  private evict(): void {
    for (const [h, e] of this.blocks) {
      if (this.logs <= this.maxLogs && this.bytes <= this.maxBytes && this.blocks.size <= this.maxBlocks)
        break;
      this.blocks.delete(h);
      if (e === BUSY) continue;
      this.logs -= e.length;
      for (const l of e) this.bytes -= l.json.text.length;
    }
  }
}

function matchesTopics(logTopics: string[], want: (Set<string> | null)[]): boolean {
  // fewer topics than the filter has positions never matches, even if the extra positions are null
  if (want.length > logTopics.length) return false;
  for (let i = 0; i < want.length; i++) {
    const alts = want[i];
    if (alts && !alts.has(logTopics[i])) return false;
  }
  return true;
}

const caches = new WeakMap<ChainReader, BlockLogsCache>();

/** The cache of a chain (one per node, shared by every method table built over it). */
export function logsCacheOf(chain: ChainReader): BlockLogsCache {
  let c = caches.get(chain);
  if (!c) caches.set(chain, (c = new BlockLogsCache(chain)));
  return c;
}
