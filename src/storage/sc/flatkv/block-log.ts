/**
 * flatkv's write-ahead log: one record per committed block (its writes, their previous values and
 * the root), appended in the background, in order, while the committing thread links the block into
 * the memory layer. A new segment starts at every flush, so a finished flush deletes what it covers
 * whole. docs/adr/0003-flatkv-log-and-memory-layer.md says why flatkv logs instead of writing lmdb.
 */
import type { Logger } from '../../../util/logger.ts';
import { Changelog, ChangelogCorruptError } from '../changelog.ts';
import type { ChangelogEntry, KVPair } from '../types.ts';

// Change sets of a log entry: the block's writes, their previous values, and the committed root.
const WAL_PAIRS = 'evm';
const WAL_PREV = 'prev';
const WAL_ROOT = 'root';
const ROOT_PAIR_KEY = Uint8Array.of(0x72);
/** The previous values' change set leaves its keys empty: they are the writes' keys, in order. */
const NO_KEY = new Uint8Array(0);

/** A block's write as the log holds it. */
export interface LoggedWrite {
  key: Uint8Array;
  value: Uint8Array | undefined;
  prev: Uint8Array | undefined;
}

export interface LoggedBlock {
  version: number;
  writes: LoggedWrite[];
  root: Uint8Array;
}

export class BlockLog {
  private readonly log: Changelog;
  private readonly logger: Logger;
  /** Log operations run one after another; these are the ones not finished yet, oldest first. */
  private inFlight: Promise<void>[] = [];
  private tail: Promise<void> = Promise.resolve();
  /** Log operations started and not finished. */
  private busy = 0;
  private error: Error | undefined;

  private constructor(log: Changelog, logger: Logger) {
    this.log = log;
    this.logger = logger;
  }

  static open(dir: string, logger: Logger, sync = true): BlockLog {
    return new BlockLog(Changelog.open(dir, sync), logger);
  }

  get dir(): string {
    return this.log.dir;
  }

  corrupt(why: string): ChangelogCorruptError {
    return new ChangelogCorruptError(this.log.dir, why);
  }

  /**
   * Queues the durable append of a committed block; its writes must know their previous values.
   * The entry is built now (the writes may change once the next block reuses their keys).
   */
  append(version: number, writes: Iterable<LoggedWrite>, root: Uint8Array): void {
    const pairs: KVPair[] = [];
    const prevs: KVPair[] = [];
    for (const w of writes) {
      pairs.push({ key: w.key, value: w.value });
      prevs.push({ key: NO_KEY, value: w.prev });
    }
    const entry: ChangelogEntry = {
      version,
      upgrades: [],
      changeSets: [
        { store: WAL_PAIRS, pairs },
        { store: WAL_PREV, pairs: prevs },
        { store: WAL_ROOT, pairs: [{ key: ROOT_PAIR_KEY, value: root }] },
      ],
    };
    // the append encodes at once and then writes and syncs on the libuv pool
    this.enqueue(() => this.log.append(entry));
  }

  /** Queues the start of a new segment for blocks from `first` on. */
  roll(first: number): void {
    this.enqueue(() => this.log.roll(first));
  }

  /** Waits until at most `max` log operations are unfinished; rethrows a log failure. */
  async wait(max: number): Promise<void> {
    while (this.inFlight.length > max) await this.inFlight.shift();
    if (this.error) throw this.error;
  }

  /** Deletes the segments holding only blocks below `version` (flushed to the KV store). */
  truncateBefore(version: number): void {
    this.log.truncateBefore(version);
  }

  /** Drops the blocks above `version` (rollback; -1: all, for an import). */
  truncateAfter(version: number): void {
    this.log.truncateAfter(version);
  }

  /** The logged blocks above `version`, oldest first; the first must be `version + 1`. */
  *blocksAfter(version: number): Generator<LoggedBlock> {
    const last = this.log.lastVersion;
    if (last === undefined || last <= version) return;
    const first = this.log.firstVersion!;
    if (first > version + 1)
      throw this.corrupt(`flatkv is at version ${version} but its log starts at ${first}`);
    for (const entry of this.log.read(version + 1, last)) {
      const pairs = entry.changeSets.find((c) => c.store === WAL_PAIRS)?.pairs ?? [];
      const prevs = entry.changeSets.find((c) => c.store === WAL_PREV)?.pairs ?? [];
      const root = entry.changeSets.find((c) => c.store === WAL_ROOT)?.pairs[0]?.value;
      if (prevs.length !== pairs.length || !root)
        throw this.corrupt(`entry ${entry.version} is not a flatkv entry`);
      yield {
        version: entry.version,
        writes: pairs.map((p, i) => ({ key: p.key, value: p.value, prev: prevs[i].value })),
        root,
      };
    }
  }

  close(): void {
    this.log.close();
  }

  /**
   * Queues a log operation behind the others (appends and segment rolls must stay in order); with
   * none unfinished it starts at once.
   */
  private enqueue(op: () => Promise<void> | void): void {
    const run = async (): Promise<void> => {
      if (!this.error) await op();
    };
    const p = this.busy === 0 ? run() : this.tail.then(run);
    this.busy++;
    void p.finally(() => this.busy--).catch(() => {});
    this.tail = p.catch((err: Error) => {
      this.error ??= err;
      this.logger.error({ err: err.message }, 'flatkv log write failed');
    });
    this.inFlight.push(this.tail);
  }
}
