/**
 * The composite State Commit store: routes each store's change set to its backend (Cosmos stores to
 * memiavl; `evm` to flatkv or to a memiavl tree named `evm`, per the chain's state_commitment) and
 * defines the app hash as the commit info hash over all store roots (flatkv's as `evm_lattice`).
 *
 * Crash consistency: memiavl and flatkv (each with its own write-ahead log) commit separately,
 * so after a crash they may be one block apart (or up to asyncCommitBuffer blocks, when memiavl's
 * changelog is async); open() rolls the one ahead back to the other, and a rollback marker makes an
 * interrupted rollback finish on the next open.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compareBytes, equalBytes, toHex } from '../../primitives/bytes.ts';
import { acquireDirLock, type DirLock } from '../../util/dir-lock.ts';
import { silentLogger, type Logger } from '../../util/logger.ts';
import type { KVStore } from '../kv/types.ts';
import { commitInfoHash, type CommitInfo, type StoreInfo } from './commit-info.ts';
import {
  CommitStateError,
  ImportError,
  IterationUnsupportedError,
  ProofUnsupportedError,
  RollbackRangeError,
  UnknownStoreError,
} from './errors.ts';
import { FlatKV } from './flatkv/store.ts';
import { MemIavlDB } from './memiavl/db.ts';
import { commitmentProof } from './memiavl/proof.ts';
import { writeDurable } from './memiavl/snapshot.ts';
import { storeRootProof, toProofOps, type ProofOps } from './proof.ts';
import { exportItems, importItems, type SnapshotItem } from './snapshot-items.ts';
import type { ChangeSet, StoreUpgrade } from './types.ts';

export type StateCommitment = 'flatkv' | 'iavl';

export const EVM_STORE = 'evm';
export const EVM_LATTICE_STORE = 'evm_lattice';

export interface CommitStoreOptions {
  /** `<home>/data/state_commit` */
  dir: string;
  /** Store names of a new chain (Cosmos modules and `evm`). */
  stores: string[];
  /** Genesis `app_state.evm.params.state_commitment`; default "flatkv". */
  stateCommitment?: StateCommitment;
  /** `sc-async-commit-buffer`: blocks the memiavl changelog may lag behind commit (0 = synchronous). */
  asyncCommitBuffer?: number;
  /** `sc-snapshot-interval` (default 10,000). */
  snapshotInterval?: number;
  /** `sc-keep-recent`: older snapshots kept (default 1). */
  keepRecent?: number;
  /** Committed versions kept in memory for reads and proofs (default 16). */
  retainVersions?: number;
  /** Versions beyond 16 are kept only while the pairs they changed add up to at most this many. */
  retainPairs?: number;
  /** Blocks flatkv can roll back (default 10,000). */
  flatkvUndoWindow?: number;
  /** First version of a new store: genesis `initial_height` (default 1). Ignored for existing data. */
  initialVersion?: number;
  /** Worker threads hashing large flatkv blocks (default cores - 1, at most 3; 0 = none). */
  flatkvHashWorkers?: number;
  /** Blocks between flatkv's background flushes of its log into the KV store (default 20). */
  flatkvFlushInterval?: number;
  /** Opens flatkv's KV database; default lmdb under `<dir>/flatkv`. Unit tests pass a memory engine. */
  openKV?: (path: string) => Promise<KVStore>;
  /** fsync the changelogs and flatkv's database writes (default true); false for a throwaway home. */
  sync?: boolean;
  logger?: Logger;
}

export interface CommitResult {
  version: number;
  appHash: Uint8Array;
}

export interface KeyProof {
  version: number;
  store: string;
  key: Uint8Array;
  /** undefined: the key is absent and `proofOps` proves its absence */
  value: Uint8Array | undefined;
  appHash: Uint8Array;
  proofOps: ProofOps;
}

const MARKER = 'ROLLBACK';
const IMPORT_MARKER = 'IMPORTING';
const MODE_FILE = 'state_commitment.json';

export class CommitStore {
  readonly dir: string;
  readonly stateCommitment: StateCommitment;
  private readonly iavl: MemIavlDB;
  private readonly flat: FlatKV | undefined;
  private readonly lock: DirLock;
  private readonly log: Logger;
  private info: CommitInfo;
  private readonly infos = new Map<number, CommitInfo>();
  private readonly retain: number;
  private closed = false;
  /** The version `commit` is writing, while it runs. */
  private committingVersion: number | undefined;

  private constructor(
    dir: string,
    mode: StateCommitment,
    iavl: MemIavlDB,
    flat: FlatKV | undefined,
    lock: DirLock,
    log: Logger,
    retain: number,
  ) {
    this.dir = dir;
    this.stateCommitment = mode;
    this.iavl = iavl;
    this.flat = flat;
    this.lock = lock;
    this.log = log;
    this.retain = retain;
    this.info = { version: iavl.version, stores: [] };
  }

  static async open(opts: CommitStoreOptions): Promise<CommitStore> {
    const mode = opts.stateCommitment ?? 'flatkv';
    if (mode !== 'flatkv' && mode !== 'iavl')
      throw new CommitStateError(`state_commitment must be "flatkv" or "iavl", got "${mode}"`);
    mkdirSync(opts.dir, { recursive: true });
    const lock = acquireDirLock(opts.dir);
    const log = (opts.logger ?? silentLogger).child({ module: 'sc' });
    try {
      checkMode(opts.dir, mode);
    } catch (err) {
      lock.release();
      throw err;
    }
    let iavl: MemIavlDB | undefined;
    let flat: FlatKV | undefined;
    try {
      iavl = await MemIavlDB.open({
        dir: join(opts.dir, 'memiavl'),
        initialStores: opts.stores.filter((s) => mode === 'iavl' || s !== EVM_STORE),
        asyncCommitBuffer: opts.asyncCommitBuffer,
        snapshotInterval: opts.snapshotInterval,
        snapshotKeepRecent: opts.keepRecent,
        retainVersions: opts.retainVersions,
        retainPairs: opts.retainPairs,
        initialVersion: opts.initialVersion,
        sync: opts.sync,
        logger: log,
      });
      if (mode === 'flatkv') {
        const path = join(opts.dir, 'flatkv');
        mkdirSync(path, { recursive: true });
        const kv = opts.openKV
          ? await opts.openKV(path)
          : await (await import('../kv/lmdb.ts')).openLmdbStore(path, { sync: opts.sync !== false });
        flat = await FlatKV.open(kv, {
          undoWindow: opts.flatkvUndoWindow,
          hashWorkers: opts.flatkvHashWorkers,
          walDir: join(opts.dir, 'flatkv-wal'),
          walSync: opts.sync,
          kvPath: opts.openKV ? undefined : path,
          // flatkv's log stays synchronous for now (FlatKV supports asyncCommitBuffer): the async-buffer
          // crash test in test/integration/sc checks reported hashes only up to the reopened version + 1,
          // so it fails when both logs lose blocks, although the loss stays within the buffer
          flushInterval: opts.flatkvFlushInterval,
          initialVersion: opts.initialVersion,
          logger: log,
        });
      }
      const store = new CommitStore(
        opts.dir,
        mode,
        iavl,
        flat,
        lock,
        log,
        Math.max(1, opts.retainVersions ?? 16),
      );
      await store.recover();
      return store;
    } catch (err) {
      await iavl?.close().catch(() => {});
      await flat?.close().catch(() => {});
      lock.release();
      throw err;
    }
  }

  /** Finishes an interrupted rollback, then brings both backends to the same version. */
  private async recover(): Promise<void> {
    if (existsSync(join(this.dir, IMPORT_MARKER))) {
      throw new ImportError(
        `a state-sync import into ${this.dir} did not finish; start the node with [statesync] enable = true ` +
          'to state sync again (a node without blocks removes the unfinished import first)',
      );
    }
    const marker = join(this.dir, MARKER);
    if (existsSync(marker)) {
      const target = Number(JSON.parse(readFileSync(marker, 'utf8')).target);
      this.log.warn({ target }, 'resuming an interrupted state commit rollback');
      await this.rollbackBackends(target);
      rmSync(marker);
    }
    if (this.flat && this.flat.version !== this.iavl.version) {
      const target = Math.min(this.flat.version, this.iavl.version);
      this.log.warn(
        { memiavl: this.iavl.version, flatkv: this.flat.version, target },
        'state commit backends disagree after a crash; rolling back to the common version',
      );
      await this.rollbackBackends(target);
    }
    this.info = this.computeInfo();
    this.infos.clear();
    this.infos.set(this.info.version, this.info);
  }

  private computeInfo(): CommitInfo {
    return this.infoFrom(this.iavl.version, this.iavl.committedHashes(), this.flat?.committedHash());
  }

  private infoFrom(version: number, iavlStores: StoreInfo[], lattice: Uint8Array | undefined): CommitInfo {
    const stores = [...iavlStores];
    if (lattice) stores.push({ name: EVM_LATTICE_STORE, hash: lattice });
    stores.sort((a, b) => compareBytes(Buffer.from(a.name), Buffer.from(b.name)));
    return { version, stores };
  }

  get version(): number {
    return this.info.version;
  }

  /** Starts (or continues) building `version` = last committed + 1 from these change sets. */
  applyChangeSets(version: number, changeSets: ChangeSet[], upgrades: StoreUpgrade[] = []): void {
    this.assertOpen();
    if (version !== this.info.version + 1)
      throw new CommitStateError(
        `state commit is at version ${this.info.version}; cannot apply version ${version}`,
      );
    if (upgrades.length > 0) this.iavl.applyUpgrades(upgrades);
    // validate every store before touching either backend, so a bad change set changes nothing
    for (const cs of changeSets) {
      if (!(cs.store === EVM_STORE && this.flat) && !this.iavl.has(cs.store))
        throw new UnknownStoreError(cs.store);
    }
    const toIavl: ChangeSet[] = [];
    for (const cs of changeSets) {
      if (cs.store === EVM_STORE && this.flat) this.flat.applyPairs(cs.pairs);
      else toIavl.push(cs);
    }
    this.iavl.applyChangeSets(toIavl);
  }

  /** The app hash the working version would commit to. */
  workingHash(): Uint8Array {
    this.assertOpen();
    return commitInfoHash(
      this.infoFrom(this.info.version + 1, this.iavl.workingHashes(), this.flat?.workingHash()).stores,
    );
  }

  /** workingHash(), with a large flatkv block hashed on worker threads. */
  async workingHashAsync(): Promise<Uint8Array> {
    this.assertOpen();
    const lattice = this.flat ? await this.flat.workingHashAsync() : undefined;
    return commitInfoHash(this.infoFrom(this.info.version + 1, this.iavl.workingHashes(), lattice).stores);
  }

  async commit(): Promise<CommitResult> {
    this.assertOpen();
    const version = this.info.version + 1;
    this.committingVersion = version;
    try {
      // flatkv first: if the process dies between the two, open() rolls flatkv back one block
      const lattice = this.flat ? await this.flat.commit(version) : undefined;
      const res = await this.iavl.commit();
      if (res.version !== version)
        throw new CommitStateError(`memiavl committed ${res.version}, expected ${version}`);
      this.info = this.infoFrom(version, res.stores, lattice);
      this.infos.set(version, this.info);
      this.infos.delete(version - this.retain);
      return { version, appHash: commitInfoHash(this.info.stores) };
    } finally {
      this.committingVersion = undefined;
    }
  }

  /**
   * True from the start of `commit` to its end: `get` may then answer some stores at the version
   * being committed (flatkv commits before memiavl) while `version` still names the one before.
   */
  get committing(): boolean {
    return this.committingVersion !== undefined;
  }

  /** Value at the latest committed version. */
  get(store: string, key: Uint8Array): Uint8Array | undefined {
    this.assertOpen();
    if (store === EVM_STORE && this.flat) return this.flat.get(key);
    return this.iavl.get(store, key);
  }

  /** Value at the working version (uncommitted writes of the block being built included). */
  getWorking(store: string, key: Uint8Array): Uint8Array | undefined {
    this.assertOpen();
    if (store === EVM_STORE && this.flat) return this.flat.getWorking(key);
    return this.iavl.getWorking(store, key);
  }

  lastCommitInfo(): CommitInfo {
    return this.info;
  }

  appHash(): Uint8Array {
    return commitInfoHash(this.info.stores);
  }

  /** Commit info of a retained or reconstructible version. */
  async commitInfoAt(version: number): Promise<CommitInfo> {
    const kept = this.infos.get(version);
    if (kept) return kept;
    const views = await this.iavl.viewsAt(version);
    const stores = [...views].map(([name, v]) => ({ name, hash: v.rootHash() }));
    return this.infoFrom(version, stores, this.flat?.rootAt(version));
  }

  /**
   * Entries of `store` with start <= key < end (either bound open) at a retained or reconstructible
   * version, in key order or reverse: memiavl's immutable view of that version, so commits made
   * meanwhile do not show. The EVM store on flatkv has no order and throws.
   */
  async *iterate(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse = false,
  ): AsyncGenerator<[Uint8Array, Uint8Array]> {
    this.assertOpen();
    if (store === EVM_STORE && this.flat) throw new IterationUnsupportedError(store);
    if (!this.iavl.has(store)) throw new UnknownStoreError(store);
    const view = (await this.iavl.viewsAt(version)).get(store);
    if (!view) return;
    const lo = start === undefined ? 0 : view.indexOf(start).index;
    const hi = end === undefined ? view.size : view.indexOf(end).index;
    for (let i = reverse ? hi - 1 : lo; reverse ? i >= lo : i < hi; reverse ? i-- : i++) {
      const leaf = view.leafAt(i)!;
      yield [leaf.key, leaf.value];
    }
  }

  /** App hash of a retained or reconstructible version (a dry run: nothing is written). */
  async appHashAt(version: number): Promise<Uint8Array> {
    this.assertOpen();
    return commitInfoHash((await this.commitInfoAt(version)).stores);
  }

  /** ICS23 proof of `key` in `store` at `version` (default latest), chained to the app hash. */
  async getProof(store: string, key: Uint8Array, version = this.info.version): Promise<KeyProof> {
    this.assertOpen();
    if (store === EVM_STORE && this.flat) throw new ProofUnsupportedError(store);
    if (!this.iavl.has(store)) throw new UnknownStoreError(store);
    const views = await this.iavl.viewsAt(version);
    const view = views.get(store);
    if (!view) throw new UnknownStoreError(store);
    const info = await this.commitInfoAt(version);
    const { proof, exists } = commitmentProof(view, key);
    const rootProof = storeRootProof(info.stores, store)!;
    if (!equalBytes(rootProof.value, view.rootHash()))
      throw new CommitStateError(`store ${store} root does not match the commit info at ${version}`);
    return {
      version,
      store,
      key: key.slice(),
      value: exists ? view.get(key) : undefined,
      appHash: commitInfoHash(info.stores),
      proofOps: toProofOps(key, proof, store, rootProof),
    };
  }

  /** Oldest version rollback can reach. */
  oldestVersion(): number {
    return Math.max(this.iavl.oldestVersion(), this.flat?.oldest ?? 0);
  }

  /** Makes `target` the latest version, discarding everything above it (crash-safe). */
  async rollback(target: number): Promise<void> {
    this.assertOpen();
    const oldest = this.oldestVersion();
    if (!Number.isInteger(target) || target < oldest || target > this.info.version) {
      throw new RollbackRangeError(target, oldest, this.info.version);
    }
    // The recent versions are still in memory in both backends (memiavl's kept trees, flatkv's
    // unflushed rows): each backend then takes them back and cuts its own log above `target`. No
    // marker: each cut leaves its backend whole, at `target` or at its old version, and open() rolls
    // the one ahead back to the other. What a backend declines goes the marked way below.
    const inMemory =
      (await this.rewindFlatInMemory(target)) &&
      (this.iavl.version === target || (await this.iavl.rewindInMemory(target)));
    if (!inMemory) {
      const marker = join(this.dir, MARKER);
      writeDurable(marker, JSON.stringify({ target }));
      await this.rollbackBackends(target);
      rmSync(marker);
    }
    this.info = this.computeInfo();
    // the versions at or below `target` are unchanged: their commit infos stay
    for (const v of [...this.infos.keys()]) if (v > target) this.infos.delete(v);
    this.infos.set(target, this.info);
    const fields = { version: target, appHash: toHex(this.appHash()) };
    if (inMemory) this.log.debug(fields, 'state commit rewound in memory');
    else this.log.info(fields, 'state commit rolled back');
  }

  private async rewindFlatInMemory(target: number): Promise<boolean> {
    if (!this.flat) return true;
    if (this.flat.version === target) {
      this.flat.discardWorking();
      return true;
    }
    return this.flat.rewindInMemory(target);
  }

  private async rollbackBackends(target: number): Promise<void> {
    this.flat?.discardWorking();
    if (this.iavl.version !== target) await this.iavl.rollback(target);
    if (this.flat && this.flat.version !== target) await this.flat.rollback(target);
  }

  /** State-sync export of `version` (latest, or a version rebuilt from a snapshot for memiavl). */
  export(version = this.info.version): AsyncGenerator<SnapshotItem> {
    this.assertOpen();
    return exportItems(this.iavl, this.flat, version);
  }

  /** Replaces all state with a state-sync stream at `version`; returns the resulting app hash. */
  async import(
    version: number,
    items: AsyncIterable<SnapshotItem> | Iterable<SnapshotItem>,
  ): Promise<CommitResult> {
    this.assertOpen();
    // a failed import leaves the backends mixed; the marker makes every later open refuse clearly
    const marker = join(this.dir, IMPORT_MARKER);
    writeDurable(marker, JSON.stringify({ version }));
    await importItems(this.iavl, this.flat, version, items);
    rmSync(marker);
    this.info = this.computeInfo();
    this.infos.clear();
    this.infos.set(version, this.info);
    return { version, appHash: this.appHash() };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.iavl.close();
      await this.flat?.close();
    } finally {
      this.lock.release();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new CommitStateError('state commit store is closed');
  }
}

/**
 * The EVM commitment is fixed when the directory is created: reopening a flatkv directory as "iavl"
 * (or the reverse) would silently compute a different app hash, so it is refused.
 */
function checkMode(dir: string, mode: StateCommitment): void {
  const path = join(dir, MODE_FILE);
  if (!existsSync(path)) {
    writeDurable(path, JSON.stringify({ stateCommitment: mode }));
    return;
  }
  const recorded = (JSON.parse(readFileSync(path, 'utf8')) as { stateCommitment?: string }).stateCommitment;
  if (recorded !== mode) {
    throw new CommitStateError(
      `${dir} holds state committed with state_commitment = "${recorded}", but the chain says "${mode}"; ` +
        'app_state.evm.params.state_commitment cannot change on an existing chain (state sync into an empty directory instead)',
    );
  }
}

export function openCommitStore(options: CommitStoreOptions): Promise<CommitStore> {
  return CommitStore.open(options);
}
