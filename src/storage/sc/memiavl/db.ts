/**
 * memiavl: one IAVL tree per store, all at one version, in memory. Durability is the changelog (one
 * entry per block, appended before commit returns, or through a bounded async queue) plus periodic
 * snapshots written in the background from an immutable committed version. Opening loads the
 * current snapshot's records as they are and replays the changelog above it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { compareBytes, toHex } from '../../../primitives/bytes.ts';
import { silentLogger, type Logger } from '../../../util/logger.ts';
import {
  CommitStateError,
  RollbackRangeError,
  UnknownStoreError,
  VersionUnavailableError,
} from '../errors.ts';
import type { ChangelogEntry, ChangeSet, KVPair, StoreUpgrade } from '../types.ts';
import { Changelog, ChangelogCorruptError } from '../changelog.ts';
import { SnapshotCorruptError } from './snapshot-file.ts';
import {
  recordedRootHashes,
  currentSnapshot,
  deleteSnapshot,
  listSnapshots,
  loadSnapshot,
  removeTempDirs,
  setCurrent,
  writeSnapshot,
} from './snapshots.ts';
import { MutableTree, type TreeView } from './tree.ts';

export interface MemIavlOptions {
  /** `<home>/data/state_commit/memiavl` */
  dir: string;
  /** Stores created when the directory is new. */
  initialStores: string[];
  /** 0: the changelog entry is durable before commit returns; n: up to n blocks may be queued. */
  asyncCommitBuffer?: number;
  /** Write a snapshot every n versions (0: only when asked). */
  snapshotInterval?: number;
  /** Older snapshots kept besides the newest (they bound how far rollback reaches). */
  snapshotKeepRecent?: number;
  /** Committed versions kept in memory for reads and proofs (older ones are rebuilt on demand). */
  retainVersions?: number;
  /**
   * Beyond the default 16, versions are kept only while the pairs they changed add up to at most
   * this many (each changed pair keeps about a tree path of nodes alive); default: no such bound.
   */
  retainPairs?: number;
  /** First version of a new directory (genesis `initial_height`); default 1. */
  initialVersion?: number;
  /** fdatasync changelog appends (default true); false for a throwaway home. */
  sync?: boolean;
  logger?: Logger;
}

export type Views = Map<string, TreeView>;

/** Committed versions kept in memory whatever they changed. */
const DEFAULT_RETAIN = 16;

export class MemIavlDB {
  readonly dir: string;
  private readonly opts: Required<Omit<MemIavlOptions, 'logger' | 'sync'>>;
  /** The pairs each retained version changed, and their sum (what `retainPairs` bounds). */
  private readonly retainedPairs = new Map<number, number>();
  private pairsRetained = 0;
  private readonly log: Logger;
  private trees = new Map<string, MutableTree>();
  private changelog: Changelog;
  /** Last committed version. */
  version = 0;
  private retained = new Map<number, Views>();
  private pending: ChangelogEntry = { version: 0, upgrades: [], changeSets: [] };
  /**
   * Entries committed while a snapshot is being written (collected only then, so memory stays
   * bounded), replayed onto the new snapshot when the trees switch to it.
   */
  private recent: ChangelogEntry[] | undefined;
  private baseVersion = 0;
  private walQueue: ({ entry: ChangelogEntry } | { roll: number })[] = [];
  private walRunning: Promise<void> | undefined;
  private walError: Error | undefined;
  private snapshotTask: Promise<void> | undefined;
  private readyBase: number | undefined;
  private closed = false;

  private constructor(opts: MemIavlOptions) {
    this.dir = opts.dir;
    this.opts = {
      dir: opts.dir,
      initialStores: opts.initialStores,
      initialVersion: opts.initialVersion ?? 1,
      asyncCommitBuffer: opts.asyncCommitBuffer ?? 0,
      snapshotInterval: opts.snapshotInterval ?? 10000,
      snapshotKeepRecent: opts.snapshotKeepRecent ?? 1,
      retainVersions: Math.max(1, opts.retainVersions ?? DEFAULT_RETAIN),
      retainPairs: opts.retainPairs ?? Infinity,
    };
    this.log = (opts.logger ?? silentLogger).child({ module: 'memiavl' });
    this.changelog = Changelog.open(join(opts.dir, 'changelog'), opts.sync !== false);
  }

  static async open(opts: MemIavlOptions): Promise<MemIavlDB> {
    mkdirSync(opts.dir, { recursive: true });
    removeTempDirs(opts.dir);
    const db = new MemIavlDB(opts);
    let base = currentSnapshot(opts.dir);
    if (base === undefined) {
      // a new directory: the initial (empty) stores just below the first version, saved so that open
      // always has a base (with initial_height H, the first commit is H and its nodes carry H)
      base = Math.max(0, (opts.initialVersion ?? 1) - 1);
      for (const name of opts.initialStores) db.trees.set(name, new MutableTree(undefined, base));
      await writeSnapshot(opts.dir, base, db.committedViews());
    }
    const last = db.changelog.lastVersion;
    db.openFrom(base, last);
    db.log.info({ version: db.version, snapshot: db.baseVersion }, 'memiavl opened');
    return db;
  }

  /**
   * Loads the current snapshot plus the changelog. If that snapshot is damaged, an older one plus a
   * longer replay gives the same state (the replay is deterministic, and the damaged snapshot's
   * recorded root hash is checked against the result when it is readable); the damaged one is
   * removed so that nothing reads it later.
   */
  private openFrom(current: number, last: number | undefined): void {
    const candidates = [
      current,
      ...listSnapshots(this.dir)
        .filter((v) => v < current)
        .reverse(),
    ];
    let firstError: unknown;
    for (const base of candidates) {
      try {
        this.loadBase(base, last !== undefined && last > base ? last : base);
      } catch (err) {
        if (!(err instanceof SnapshotCorruptError) && !(err instanceof ChangelogCorruptError)) throw err;
        firstError ??= err;
        this.log.error(
          { snapshot: base, err: (err as Error).message },
          'memiavl snapshot unusable; trying an older one',
        );
        continue;
      }
      if (base !== current) {
        const expected = recordedRootHashes(this.dir, current);
        if (expected && this.version >= current) {
          // compare at the damaged snapshot's version, rebuilt from the good base
          const { trees } = this.rebuild(base, current);
          for (const [name, hash] of expected) {
            const got = trees.get(name)?.committed().rootHash();
            if (!got || toHex(got) !== hash) throw firstError;
          }
        }
        deleteSnapshot(this.dir, current);
        setCurrent(this.dir, base);
        this.log.warn(
          { damaged: current, used: base, version: this.version },
          'memiavl recovered from an older snapshot',
        );
      }
      return;
    }
    throw firstError;
  }

  /** Replaces the in-memory trees with snapshot `base` plus the changelog up to `target`. */
  private loadBase(base: number, target: number): void {
    const { trees } = this.rebuild(base, target);
    this.trees = trees;
    this.version = target;
    this.baseVersion = base;
    this.recent = undefined;
    this.retained.clear();
    this.retainedPairs.clear();
    this.pairsRetained = 0;
    this.historical = undefined;
    this.retained.set(target, this.committedViews());
    this.pending = { version: target + 1, upgrades: [], changeSets: [] };
  }

  private rebuild(base: number, target: number): { trees: Map<string, MutableTree> } {
    const trees = new Map<string, MutableTree>();
    for (const [name, snap] of loadSnapshot(this.dir, base)) trees.set(name, new MutableTree(snap));
    if (target > base) for (const e of this.changelog.read(base + 1, target)) replayEntry(trees, e);
    return { trees };
  }

  storeNames(): string[] {
    return [...this.trees.keys()].sort();
  }

  has(store: string): boolean {
    return this.trees.has(store);
  }

  private tree(store: string): MutableTree {
    const t = this.trees.get(store);
    if (!t) throw new UnknownStoreError(store);
    return t;
  }

  /** Store upgrades of the working version; applied before its change sets. */
  applyUpgrades(upgrades: StoreUpgrade[]): void {
    this.assertOpen();
    for (const u of upgrades) applyUpgrade(this.trees, u, this.version);
    this.pending.upgrades.push(...upgrades);
  }

  /** Applies change sets to the working version, each sorted by key (the tree shape depends on order). */
  applyChangeSets(changeSets: ChangeSet[]): void {
    this.assertOpen();
    const sorted = changeSets
      // copies: the trees and the changelog keep these bytes, and callers may reuse their buffers
      .map((cs) => ({
        store: cs.store,
        pairs: cs.pairs
          .map((p) => ({ key: p.key.slice(), value: p.value?.slice() }))
          .sort((a, b) => compareBytes(a.key, b.key)),
      }))
      .sort((a, b) => (a.store < b.store ? -1 : a.store > b.store ? 1 : 0));
    for (const cs of sorted) this.tree(cs.store);
    for (const cs of sorted) {
      applyPairs(this.tree(cs.store), cs.pairs);
      this.pending.changeSets.push(cs);
    }
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    return this.tree(store).committed().get(key);
  }

  getWorking(store: string, key: Uint8Array): Uint8Array | undefined {
    return this.tree(store).get(key);
  }

  committedHashes(): { name: string; hash: Uint8Array }[] {
    return this.storeNames().map((name) => ({ name, hash: this.trees.get(name)!.committed().rootHash() }));
  }

  workingHashes(): { name: string; hash: Uint8Array }[] {
    return this.storeNames().map((name) => ({ name, hash: this.trees.get(name)!.workingHash() }));
  }

  /** Commits the working version; resolves when its changelog entry is durable (or queued, if async). */
  async commit(): Promise<{ version: number; stores: { name: string; hash: Uint8Array }[] }> {
    this.assertOpen();
    if (this.walError) throw this.walError;
    const entry = this.pending;
    for (const t of this.trees.values()) t.commit();
    this.version = entry.version;
    this.pending = { version: this.version + 1, upgrades: [], changeSets: [] };
    this.recent?.push(entry);
    const views = this.committedViews();
    this.retained.set(this.version, views);
    this.trimRetained(this.version, entry);
    this.enqueueWal({ entry });
    const interval = this.opts.snapshotInterval;
    if (interval > 0 && this.version % interval === 0 && !this.snapshotTask)
      this.startSnapshot(this.version, views);
    if (this.readyBase !== undefined) this.switchBase(this.readyBase);
    await this.waitWal(this.opts.asyncCommitBuffer);
    return {
      version: this.version,
      stores: this.storeNames().map((name) => ({ name, hash: views.get(name)!.rootHash() })),
    };
  }

  /** Records what `version` changed and lets the oldest retained versions go past the bounds. */
  private trimRetained(version: number, entry: ChangelogEntry): void {
    let pairs = 0;
    for (const cs of entry.changeSets) pairs += cs.pairs.length;
    this.retainedPairs.set(version, pairs);
    this.pairsRetained += pairs;
    const { retainVersions, retainPairs } = this.opts;
    // versions ascend in insertion order (a rewind deletes from the top), so the oldest come first
    for (const v of this.retained.keys()) {
      const tooMany = v <= version - retainVersions;
      if (!tooMany && !(this.pairsRetained > retainPairs && v <= version - DEFAULT_RETAIN)) break;
      this.retained.delete(v);
      this.pairsRetained -= this.retainedPairs.get(v) ?? 0;
      this.retainedPairs.delete(v);
    }
  }

  private committedViews(): Views {
    const views: Views = new Map();
    for (const [name, t] of this.trees) views.set(name, t.committed());
    return views;
  }

  /** Committed views of `version`: retained in memory, or rebuilt from a snapshot plus the changelog. */
  async viewsAt(version: number): Promise<Views> {
    this.assertOpen();
    const kept = this.retained.get(version);
    if (kept) return kept;
    const snaps = listSnapshots(this.dir);
    const base = snaps.filter((s) => s <= version).at(-1);
    if (version > this.version || base === undefined)
      throw new VersionUnavailableError(version, snaps[0], this.version);
    // consecutive queries at one historical height (a proof per key) reuse the rebuilt trees
    if (this.historical?.version === version) return this.historical.views;
    await this.flushWal();
    const { trees } = this.rebuild(base, version);
    const views: Views = new Map();
    for (const [name, t] of trees) views.set(name, t.committed());
    this.historical = { version, views };
    return views;
  }

  private historical: { version: number; views: Views } | undefined;

  /** Oldest version that viewsAt / rollback can reach. */
  oldestVersion(): number {
    return listSnapshots(this.dir)[0] ?? this.version;
  }

  // --- changelog writer -------------------------------------------------------------------------

  private enqueueWal(item: { entry: ChangelogEntry } | { roll: number }): void {
    this.walQueue.push(item);
    this.kickWal();
  }

  /** Starts the writer if there is work and none is running; it restarts itself for late items. */
  private kickWal(): void {
    if (this.walRunning || this.walQueue.length === 0 || this.walError) return;
    this.walRunning = this.drainWal().then(() => {
      this.walRunning = undefined;
      this.kickWal();
    });
  }

  private async drainWal(): Promise<void> {
    while (this.walQueue.length > 0 && !this.walError) {
      const item = this.walQueue[0];
      try {
        if ('entry' in item) await this.changelog.append(item.entry);
        else this.changelog.roll(item.roll);
      } catch (err) {
        this.walError = err as Error;
        this.log.error({ err: (err as Error).message }, 'memiavl changelog write failed');
      }
      this.walQueue.shift();
    }
  }

  /** Waits until at most `max` entries are queued. */
  private async waitWal(max: number): Promise<void> {
    while (this.walQueue.length > max && !this.walError) {
      this.kickWal();
      await this.walRunning;
    }
    if (this.walError) throw this.walError;
  }

  async flushWal(): Promise<void> {
    await this.waitWal(0);
  }

  // --- snapshots --------------------------------------------------------------------------------

  private startSnapshot(version: number, views: Views): void {
    // entries after `version` go to a new segment, so truncating behind the snapshot drops whole files
    this.enqueueWal({ roll: version + 1 });
    this.recent = [];
    const started = Date.now();
    this.snapshotTask = writeSnapshot(this.dir, version, views)
      .then(() => {
        this.log.info({ version, ms: Date.now() - started }, 'memiavl snapshot written');
        this.pruneSnapshots();
        this.readyBase = version;
      })
      .catch((err) => {
        this.recent = undefined;
        this.log.error({ version, err: (err as Error).message }, 'memiavl snapshot failed');
      })
      .finally(() => {
        this.snapshotTask = undefined;
      });
  }

  /** Writes a snapshot of the latest committed version now and waits for it (tests, import). */
  async snapshot(): Promise<void> {
    this.assertOpen();
    if (this.snapshotTask) await this.snapshotTask;
    if (listSnapshots(this.dir).includes(this.version)) return;
    this.startSnapshot(this.version, this.committedViews());
    await this.snapshotTask;
    if (this.readyBase !== undefined) this.switchBase(this.readyBase);
  }

  private pruneSnapshots(): void {
    const snaps = listSnapshots(this.dir);
    const keep = snaps.slice(-(1 + this.opts.snapshotKeepRecent));
    for (const v of snaps) if (!keep.includes(v)) deleteSnapshot(this.dir, v);
    this.changelog.truncateBefore(keep[0] + 1);
  }

  /**
   * Re-bases the trees on a freshly written snapshot: memory of all MemNodes up to it is released.
   * Done between blocks (the working tree is clean right after commit); the result is checked
   * against the current hashes before it is used.
   */
  private switchBase(base: number): void {
    this.readyBase = undefined;
    if (base <= this.baseVersion) return;
    const trees = new Map<string, MutableTree>();
    for (const [name, snap] of loadSnapshot(this.dir, base)) trees.set(name, new MutableTree(snap));
    const entries = (this.recent ?? []).filter((e) => e.version > base);
    this.recent = undefined;
    for (const e of entries) replayEntry(trees, e);
    if (trees.size !== this.trees.size) {
      this.log.error({ base }, 'memiavl snapshot reload has different stores; keeping memory trees');
      return;
    }
    for (const [name, t] of this.trees) {
      const other = trees.get(name);
      if (!other || compareBytes(other.committed().rootHash(), t.committed().rootHash()) !== 0) {
        this.log.error(
          { base, store: name },
          'memiavl snapshot reload does not reproduce the current hash; keeping memory trees',
        );
        return;
      }
    }
    this.trees = trees;
    this.baseVersion = base;
  }

  // --- rollback, import -------------------------------------------------------------------------

  /** Makes `target` the latest version: newest snapshot <= target plus replay; later data is discarded. */
  async rollback(target: number): Promise<void> {
    if (await this.rewindInMemory(target)) return;
    const snaps = listSnapshots(this.dir);
    const base = snaps.filter((s) => s <= target).at(-1);
    if (target > this.version || base === undefined)
      throw new RollbackRangeError(target, snaps[0] ?? this.version, this.version, 'memiavl');
    // each step is idempotent, so an interrupted rollback can simply be run again
    setCurrent(this.dir, base);
    this.changelog.truncateAfter(target);
    for (const s of snaps) if (s > target) deleteSnapshot(this.dir, s);
    this.loadBase(base, target);
    this.log.info({ version: target, snapshot: base }, 'memiavl rolled back');
  }

  /**
   * rollback(target) without a snapshot reload or a replay, when `target` is one of the versions kept
   * in memory: committed nodes are never changed (a block copies the path it changes), so the kept
   * views of `target` are its whole trees, and the working trees start from them. Only the changelog
   * above `target` goes, durably, so that nothing replays it (a crash before that cut reopens the old
   * version; after it, `target`). Declines (false, nothing changed) when a snapshot lies above
   * `target`: moving `current` below it and deleting it is rollback's work.
   */
  async rewindInMemory(target: number): Promise<boolean> {
    this.assertOpen();
    await this.flushWal();
    if (this.snapshotTask) await this.snapshotTask;
    const views = this.retained.get(target);
    if (!views || target > this.version || listSnapshots(this.dir).some((s) => s > target)) return false;
    this.changelog.truncateAfter(target);
    const trees = new Map<string, MutableTree>();
    for (const [name, view] of views) trees.set(name, MutableTree.fromView(view));
    this.trees = trees;
    this.version = target;
    this.pending = { version: target + 1, upgrades: [], changeSets: [] };
    for (const v of this.retained.keys()) {
      if (v <= target) continue;
      this.retained.delete(v);
      this.pairsRetained -= this.retainedPairs.get(v) ?? 0;
      this.retainedPairs.delete(v);
    }
    if (this.historical && this.historical.version > target) this.historical = undefined;
    // entries a new base snapshot would replay: those above `target` are gone
    if (this.recent) this.recent = this.recent.filter((e) => e.version <= target);
    this.log.debug({ version: target }, 'memiavl rewound in memory');
    return true;
  }

  /** Replaces all state with imported trees at `version` (state sync), saved as a snapshot. */
  async resetTo(version: number, views: Views): Promise<void> {
    this.assertOpen();
    await this.flushWal();
    if (this.snapshotTask) await this.snapshotTask;
    await writeSnapshot(this.dir, version, views);
    for (const s of listSnapshots(this.dir)) if (s !== version) deleteSnapshot(this.dir, s);
    this.changelog.close();
    this.changelog.truncateAfter(-1);
    this.changelog.roll(version + 1);
    this.loadBase(version, version);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flushWal();
      if (this.snapshotTask) await this.snapshotTask;
    } finally {
      this.closed = true;
      this.changelog.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new CommitStateError('memiavl is closed');
  }
}

function applyPairs(tree: MutableTree, pairs: KVPair[]): void {
  for (const p of pairs) {
    if (p.value === undefined) tree.remove(p.key);
    else tree.set(p.key, p.value);
  }
}

function applyUpgrade(trees: Map<string, MutableTree>, u: StoreUpgrade, version: number): void {
  if (u.delete) {
    trees.delete(u.name);
  } else if (u.renameFrom !== undefined) {
    const t = trees.get(u.renameFrom);
    if (!t) throw new UnknownStoreError(u.renameFrom);
    trees.delete(u.renameFrom);
    trees.set(u.name, t);
  } else if (!trees.has(u.name)) {
    trees.set(u.name, new MutableTree(undefined, version));
  }
}

/** Re-applies one changelog entry exactly as it was applied the first time, then commits it. */
function replayEntry(trees: Map<string, MutableTree>, e: ChangelogEntry): void {
  for (const u of e.upgrades) applyUpgrade(trees, u, e.version - 1);
  for (const cs of e.changeSets) {
    const t = trees.get(cs.store);
    if (!t) throw new UnknownStoreError(cs.store);
    applyPairs(t, cs.pairs);
  }
  for (const t of trees.values()) t.commit();
}
