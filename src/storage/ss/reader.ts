/**
 * The State Store opened for reading only, from another thread of the process whose State Store
 * writes it (an RPC reader thread): the same MVCC databases and routing as CompositeStateStore, no
 * locks (the process holds them), no changelogs and no writer. It serves exactly the versions the
 * databases hold: a version the writer accepted but has not applied yet (async writes) is above
 * `latestVersion()` here, and the caller must not ask for it. `refresh` moves the view to everything
 * the writer has committed since.
 *
 * Only engines that read synchronously from shared memory can be read this way: lmdb, whose
 * environment every thread of a process shares. RocksDB allows one opener per directory.
 */
import { join } from 'node:path';
import type { KVEntry } from '../kv/types.ts';
import { openLmdbStore } from '../kv/lmdb.ts';
import { assertVersion } from './encoding.ts';
import { SSIterationDisabledError, SSVersionTooHighError } from './errors.ts';
import { EVM_SS_DATABASES, EVM_STORE, evmDatabaseIndex } from './evm-keys.ts';
import { MvccGroup } from './group.ts';
import { MvccDatabase } from './mvcc.ts';
import { resolveLayout, STATE_STORE_DEFAULTS, type StateStoreOptions } from './options.ts';
import { type KeyRange, StateStoreReads } from './store-reads.ts';
import type { ImportEntry, StateStore, StoreChange } from './types.ts';

export interface StateStoreReader extends StateStore {
  /** The watermarks again, from the reads' current view; `renew`: moved to the newest commits first. */
  refresh(renew?: boolean): void;
}

/**
 * The reader, or why this State Store cannot be read from another thread. `options` are the ones the
 * node opened its State Store with.
 */
export async function openStateStoreReader(
  options: StateStoreOptions,
): Promise<{ store: StateStoreReader } | { refused: string }> {
  const layout = resolveLayout(options);
  if (layout.engine !== 'lmdb')
    return {
      refused: `ss-backend = ${options.backend}: only the lmdb engine's databases can be read from another thread`,
    };
  const opened: MvccDatabase[] = [];
  const open = async (dir: string) => {
    const db = await MvccDatabase.openReader(dir, openLmdbStore);
    opened.push(db);
    return db;
  };
  try {
    const cosmos = new MvccGroup('Cosmos SS', [await open(layout.cosmosDir)], () => 0);
    let evm: MvccGroup | undefined;
    if (options.evmSplit ?? STATE_STORE_DEFAULTS.evmSplit) {
      if (options.evmSeparateDbs ?? STATE_STORE_DEFAULTS.evmSeparateDbs) {
        const dbs: MvccDatabase[] = [];
        for (const name of EVM_SS_DATABASES) dbs.push(await open(join(layout.evmDir, name)));
        evm = new MvccGroup('EVM SS', dbs, (_store, key) => evmDatabaseIndex(key));
      } else evm = new MvccGroup('EVM SS', [await open(join(layout.evmDir, 'evm'))], () => 0);
    }
    return { store: new ReadOnlyStateStore(cosmos, evm, opened) };
  } catch (err) {
    for (const db of opened) await db.close().catch(() => {});
    throw err;
  }
}

class ReadOnlyStateStore extends StateStoreReads implements StateStoreReader {
  private readonly cosmos: MvccGroup;
  private readonly evm: MvccGroup | undefined;
  private readonly databases: readonly MvccDatabase[];

  constructor(cosmos: MvccGroup, evm: MvccGroup | undefined, databases: readonly MvccDatabase[]) {
    super();
    this.cosmos = cosmos;
    this.evm = evm;
    this.databases = databases;
  }

  refresh(renew = false): void {
    for (const db of this.databases) db.reload(renew);
  }

  latestVersion(): number {
    return this.evm ? Math.min(this.cosmos.latest, this.evm.latest) : this.cosmos.latest;
  }

  earliestVersion(): number {
    return this.evm ? Math.max(this.cosmos.earliest, this.evm.earliest) : this.cosmos.earliest;
  }

  private partOf(store: string): MvccGroup {
    return this.evm && store === EVM_STORE ? this.evm : this.cosmos;
  }

  protected valueAt(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined> {
    const part = this.partOf(store);
    assertVersion(version);
    if (version > part.latest) throw new SSVersionTooHighError(version, this.latestVersion());
    return part.read(store, key, version);
  }

  protected entries(store: string, range: KeyRange, version: number): AsyncIterable<KVEntry> {
    if (this.evm && store === EVM_STORE) throw new SSIterationDisabledError(store);
    assertVersion(version);
    const part = this.cosmos;
    if (version > part.latest) throw new SSVersionTooHighError(version, this.latestVersion());
    if (version < part.earliest) return (async function* () {})();
    return part.iterate(store, range.start, range.end, version, range.reverse);
  }

  private refuse(what: string): never {
    throw new TypeError(`the State Store is open for reading only here: cannot ${what}`);
  }

  applyChangeSet(_version: number, _changes: readonly StoreChange[]): Promise<void> {
    this.refuse('apply a change set');
  }

  prune(_version: number): Promise<void> {
    this.refuse('prune');
  }

  import(_version: number, _entries: AsyncIterable<ImportEntry> | Iterable<ImportEntry>): Promise<void> {
    this.refuse('import');
  }

  rollback(_version: number): Promise<void> {
    this.refuse('roll back');
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    for (const db of this.databases) await db.close();
  }
}
