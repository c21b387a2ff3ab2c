import type { Logger } from '../../util/logger.ts';
import type { KVEntry } from '../kv/types.ts';
import type { Changelog } from './changelog.ts';
import { assertVersion } from './encoding.ts';
import {
  SSRollbackRangeError,
  SSClosedError,
  SSIterationDisabledError,
  SSVersionOrderError,
  SSVersionPrunedError,
  SSVersionTooHighError,
  SSWriterFailedError,
} from './errors.ts';
import { EVM_STORE } from './evm-keys.ts';
import type { MvccGroup } from './group.ts';
import type { PruneStats } from './prune.ts';
import { type KeyRange, StateStoreReads } from './store-reads.ts';
import type { ImportEntry, StateStore, StoreChange, SyncStateRead } from './types.ts';

export interface CompositeParts {
  cosmos: MvccGroup;
  /** Present with evm-ss-split = true: the `evm` store lives here and only here. */
  evm?: MvccGroup;
  /** Journal of the Cosmos SS's change sets (async writes only). */
  cosmosLog?: Changelog;
  /** Journal of the EVM SS's change sets (always, when split). */
  evmLog?: Changelog;
  asyncWriteBuffer: number;
  keepRecent: number;
  pruneIntervalSeconds: number;
  logger: Logger;
}

/** Most change sets the background writer commits in one transaction. */
const GROUP_COMMIT_MAX = 32;

interface Pending {
  version: number;
  evm: StoreChange[];
  cosmos: StoreChange[];
}

/**
 * The State Store the node uses: routes each store to the Cosmos SS or the EVM SS, journals and
 * orders writes, waits for the background writer on reads of accepted-but-unapplied versions, and
 * prunes both halves to the same height.
 *
 * Write order per version, sync or async: journal (EVM, then Cosmos when async) → EVM SS databases →
 * Cosmos SS. So whenever the Cosmos SS holds a version, every EVM SS database holds it too, and a
 * crash leaves at most a suffix that the journals replay.
 */
export class CompositeStateStore extends StateStoreReads implements StateStore {
  private readonly p: CompositeParts;
  private readonly queue: Pending[] = [];
  private accepted: number;
  private writer: Promise<void> | undefined;
  private syncWrites: Promise<void> = Promise.resolve();
  /** The changelog appends, one version after another. */
  private journaling: Promise<void> = Promise.resolve();
  private writerError: SSWriterFailedError | undefined;
  private waiters: { ready: () => boolean; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private pruning: Promise<PruneStats | undefined> = Promise.resolve(undefined);
  private pruneTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private closing = false;

  constructor(parts: CompositeParts) {
    super();
    this.p = parts;
    this.accepted = this.latestVersion();
    if (parts.keepRecent > 0 && parts.pruneIntervalSeconds > 0) {
      this.pruneTimer = setInterval(() => void this.autoPrune(), parts.pruneIntervalSeconds * 1000);
      this.pruneTimer.unref();
    }
  }

  /** True when this store routes the `evm` store to a separate EVM SS. */
  get split(): boolean {
    return this.p.evm !== undefined;
  }

  latestVersion(): number {
    const { cosmos, evm } = this.p;
    return evm ? Math.min(cosmos.latest, evm.latest) : cosmos.latest;
  }

  earliestVersion(): number {
    const { cosmos, evm } = this.p;
    return evm ? Math.max(cosmos.earliest, evm.earliest) : cosmos.earliest;
  }

  /** On the hot path (version already applied) the part's own promise, and no other. */
  protected valueAt(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined> {
    const part = this.partOf(store);
    const wait = this.readable(part, version);
    return wait ? wait.then(() => part.read(store, key, version)) : part.read(store, key, version);
  }

  /**
   * Synchronous point reads at `version`, for re-executing a block (debug_trace*) with the same
   * synchronous state code that executed it. Resolves once the background writer has applied
   * `version` to both halves (after that, nothing at or below it changes except by pruning); resolves
   * undefined when an engine cannot read synchronously (rocksdb). Each read routes exactly as `get`
   * (the `evm` store to the EVM SS when split) and throws if pruning has since removed `version`,
   * rather than answering from a partial history.
   */
  async syncReaderAt(version: number): Promise<SyncStateRead | undefined> {
    this.assertOpen();
    const { cosmos, evm } = this.p;
    if (!cosmos.syncReads || (evm && !evm.syncReads)) return undefined;
    await this.readable(cosmos, version);
    if (evm) await this.readable(evm, version);
    return (store, key) => {
      const part = this.partOf(store);
      if (version < part.earliest) throw new SSVersionPrunedError(version, part.earliest);
      return part.readSync(store, key, version);
    };
  }

  protected entries(store: string, range: KeyRange, version: number): AsyncIterable<KVEntry> {
    this.assertOpen();
    if (this.p.evm && store === EVM_STORE) throw new SSIterationDisabledError(store);
    const part = this.p.cosmos;
    assertVersion(version);
    if (version > this.accepted) throw new SSVersionTooHighError(version, this.latestVersion());
    const self = this;
    return (async function* () {
      await self.readable(part, version);
      if (version < part.earliest) return;
      yield* part.iterate(store, range.start, range.end, version, range.reverse);
    })();
  }

  async applyChangeSet(version: number, changes: readonly StoreChange[]): Promise<void> {
    this.assertOpen();
    assertVersion(version);
    if (this.writerError) throw this.writerError;
    if (version <= this.accepted) throw new SSVersionOrderError(version, this.accepted);
    const pending: Pending = { version, evm: [], cosmos: [] };
    if (this.p.evm) for (const c of changes) (c.store === EVM_STORE ? pending.evm : pending.cosmos).push(c);
    else pending.cosmos = changes.slice();
    const { evmLog, cosmosLog } = this.p;
    // Accepted at once, so that callers that do not await each block are still checked in order and a
    // read of this version waits for it. The journals are written off the event loop (a slow disk's
    // fsync must not stall every RPC once per block), one version after another, the two halves'
    // side by side; the change set reaches the databases only once journaled. A version re-applied
    // after a crash may already be journaled: journals only grow. A failed journal write stops all
    // later writes, as a failed database write does.
    this.accepted = version;
    const journaled = this.journaling.then(async () => {
      if (this.writerError) throw this.writerError;
      await Promise.all([
        evmLog && version > evmLog.lastVersion ? evmLog.append(version, pending.evm) : undefined,
        cosmosLog && version > cosmosLog.lastVersion ? cosmosLog.append(version, pending.cosmos) : undefined,
      ]);
    });
    this.journaling = journaled.catch((err) => {
      this.writerError ??= new SSWriterFailedError(err);
      for (const w of this.waiters.splice(0)) w.reject(this.writerError);
    });
    await journaled;
    if (this.p.asyncWriteBuffer === 0) {
      // Serialized, so that callers that do not await each block still write in version order; a
      // failure stops all later writes, since the failed version is already accepted and journaled.
      const run = this.syncWrites.then(() => this.write([pending]));
      this.syncWrites = run.catch((err) => {
        this.writerError ??= new SSWriterFailedError(err);
        for (const w of this.waiters.splice(0)) w.reject(this.writerError);
      });
      await run;
      return;
    }
    this.queue.push(pending);
    this.writer ??= this.drain();
    // Back-pressure: the caller waits while more than `buffer` change sets are queued.
    if (this.queue.length > this.p.asyncWriteBuffer)
      await this.until(() => this.queue.length <= this.p.asyncWriteBuffer);
  }

  async flush(): Promise<void> {
    await this.journaling;
    await this.syncWrites;
    if (this.writerError) throw this.writerError;
    await this.until(() => this.queue.length === 0);
  }

  async prune(version: number): Promise<void> {
    this.assertOpen();
    assertVersion(version);
    await this.pruneTo(version);
  }

  async import(version: number, entries: AsyncIterable<ImportEntry> | Iterable<ImportEntry>): Promise<void> {
    this.assertOpen();
    assertVersion(version);
    await this.flush();
    await this.pruning;
    if (version <= this.latestVersion()) throw new SSVersionOrderError(version, this.latestVersion());
    const { cosmos, evm } = this.p;
    const cosmosWriter = cosmos.importWriter(version);
    const evmWriter = evm?.importWriter(version);
    for await (const e of entries) {
      if (evmWriter && e.store === EVM_STORE) await evmWriter.add(e);
      else await cosmosWriter.add(e);
    }
    await evmWriter?.done();
    await cosmosWriter.done();
    // Records from before the snapshot must never replay over it.
    this.p.evmLog?.reset();
    this.p.cosmosLog?.reset();
    // EVM first, as for writes: a crash in between leaves the Cosmos SS without history, not the EVM SS.
    await evm?.finishImport(version);
    await cosmos.finishImport(version);
    this.accepted = version;
  }

  /**
   * Makes `version` the latest, discarding everything above it (an operator rollback, node stopped).
   * Every accepted change set is in the databases after the flush, so the changelogs are emptied
   * first: nothing above the target can replay afterwards, even if the rollback is interrupted.
   */
  async rollback(version: number): Promise<void> {
    this.assertOpen();
    assertVersion(version);
    await this.flush();
    await this.pruning;
    const { cosmos, evm } = this.p;
    const earliest = this.earliestVersion();
    if (version > this.latestVersion() || version < earliest) {
      throw new SSRollbackRangeError(version, earliest, this.latestVersion());
    }
    this.p.evmLog?.reset();
    this.p.cosmosLog?.reset();
    await evm?.rollback(version);
    await cosmos.rollback(version);
    this.accepted = version;
  }

  keepRecentWrites(maxKeys: number): void {
    this.p.cosmos.keepRecentWrites(maxKeys);
    this.p.evm?.keepRecentWrites(maxKeys);
  }

  async close(): Promise<void> {
    if (this.closed || this.closing) return;
    this.closing = true;
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    try {
      if (!this.writerError) await this.flush();
    } finally {
      await this.pruning.catch(() => undefined);
      // a failed writer skips the flush: an append still in flight must not meet a closed file
      await this.journaling;
      this.closed = true;
      this.p.evmLog?.close();
      this.p.cosmosLog?.close();
      await this.p.evm?.close();
      await this.p.cosmos.close();
    }
  }

  /** Runs one prune to `height` (clamped to the latest version), after any prune in progress. */
  pruneTo(height: number): Promise<PruneStats | undefined> {
    const run = async (): Promise<PruneStats | undefined> => {
      const target = Math.min(height, this.latestVersion());
      if (target <= this.earliestVersion() && this.pruneTargetPending() === 0) return undefined;
      const groups = this.p.evm ? [this.p.cosmos, this.p.evm] : [this.p.cosmos];
      // Every database's earliest rises (with the prune recorded) before any database deletes, so a
      // kill mid-prune leaves equal earliest versions, or a recorded target recovery completes.
      for (const g of groups) await g.beginPrune(target);
      const stats: PruneStats = { deleted: 0, batches: 0, worstBatchMs: 0 };
      for (const g of groups) {
        const s = await g.deleteBelow(target, () => this.closing);
        stats.deleted += s.deleted;
        stats.batches += s.batches;
        stats.worstBatchMs = Math.max(stats.worstBatchMs, s.worstBatchMs);
      }
      if (!this.closing) for (const g of groups) await g.endPrune(target);
      return stats;
    };
    this.pruning = this.pruning.catch(() => undefined).then(run);
    return this.pruning;
  }

  private pruneTargetPending(): number {
    return Math.max(this.p.cosmos.pruneTarget, this.p.evm?.pruneTarget ?? 0);
  }

  private async autoPrune(): Promise<void> {
    const target = this.latestVersion() - this.p.keepRecent;
    if (this.closing || target <= this.earliestVersion()) return;
    try {
      const stats = await this.pruneTo(target);
      if (stats) this.p.logger.debug({ height: target, ...stats }, 'state store pruned');
    } catch (err) {
      this.p.logger.error({ err, height: target }, 'state store pruning failed');
    }
  }

  private partOf(store: string): MvccGroup {
    this.assertOpen();
    return this.p.evm && store === EVM_STORE ? this.p.evm : this.p.cosmos;
  }

  /**
   * Throws above the accepted version; for accepted versions not yet applied, returns a promise of the
   * background writer reaching them; otherwise (the common case) nothing.
   */
  private readable(part: MvccGroup, version: number): Promise<void> | undefined {
    assertVersion(version);
    if (version <= part.latest) return undefined;
    if (version > this.accepted) throw new SSVersionTooHighError(version, this.latestVersion());
    return this.until(() => part.latest >= version);
  }

  /** Applies queued versions, EVM SS first; a backlog goes in as one transaction per database. */
  private async write(batch: readonly Pending[]): Promise<void> {
    const { cosmos, evm, evmLog, cosmosLog } = this.p;
    if (evm) await evm.applyMany(batch.map((p) => ({ version: p.version, changes: p.evm })));
    await cosmos.applyMany(batch.map((p) => ({ version: p.version, changes: p.cosmos })));
    if (evmLog && evm) evmLog.truncate(evm.latest);
    if (cosmosLog) cosmosLog.truncate(cosmos.latest);
    this.notify(); // reads of these versions may be waiting (sync mode: issued while the write ran)
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.slice(0, GROUP_COMMIT_MAX);
        await this.write(batch);
        this.queue.splice(0, batch.length);
        this.notify();
      }
    } catch (err) {
      this.writerError = new SSWriterFailedError(err);
      this.p.logger.error({ err }, 'state store background writer failed');
      for (const w of this.waiters.splice(0)) w.reject(this.writerError);
    } finally {
      this.writer = undefined;
    }
  }

  private until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    if (this.writerError) return Promise.reject(this.writerError);
    return new Promise((resolve, reject) => this.waiters.push({ ready, resolve, reject }));
  }

  private notify(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) w.ready() ? w.resolve() : still.push(w);
    this.waiters = still;
  }

  private assertOpen(): void {
    if (this.closed || this.closing) throw new SSClosedError();
  }
}
