import { KVClosedError, KVEngineMissingError } from './errors.ts';
import { asBytes, assertValidOps } from './ops.ts';
import type { KVEntry, KVOp, KVOpenOptions, KVRange, KVReader, KVSnapshot, KVStore } from './types.ts';

/**
 * RocksDB through `rocksdb-native`, an optional dependency loaded on first use: a node that never
 * selects `ss-backend = "rocksdb"` never loads the native library, and one that does without the
 * package installed gets a KVEngineMissingError naming it.
 *
 * Durability: every `write` is one RocksDB WriteBatch, appended to RocksDB's own WAL before it is
 * acknowledged, so a process crash (SIGKILL) loses nothing acknowledged. rocksdb-native exposes no
 * per-write fsync, so `sync` cannot force one: after a power loss the newest batches may be missing,
 * and the layers above (the SS changelog, block replay) restore them. The option is accepted for
 * interface compatibility.
 */
export async function openRocksStore(path: string, _options: KVOpenOptions = {}): Promise<KVStore> {
  const RocksDB = await loadRocksDB();
  const db = new RocksDB(path, { createIfMissing: true });
  await db.ready();
  return new RocksStore(db, path);
}

/** The part of rocksdb-native's (untyped) API this adapter uses. */
interface RocksSession {
  get(key: Uint8Array): Promise<Buffer | null>;
  read(opts?: { capacity?: number; autoDestroy?: boolean }): RocksReadBatch;
  write(opts?: { capacity?: number; autoDestroy?: boolean }): RocksWriteBatch;
  iterator(range: { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number }): AsyncIterable<{
    key: Buffer;
    value: Buffer;
  }>;
  snapshot(): RocksSession;
  ready(): Promise<void>;
  close(opts?: { force?: boolean }): Promise<void>;
}
interface RocksReadBatch {
  get(key: Uint8Array): Promise<Buffer | null>;
  tryFlush(): void;
}
interface RocksWriteBatch {
  tryPut(key: Uint8Array, value: Uint8Array): void;
  tryDelete(key: Uint8Array): void;
  flush(): Promise<void>;
}
type RocksConstructor = new (path: string, opts: { createIfMissing: boolean }) => RocksSession;

const PACKAGE = 'rocksdb-native';
let loaded: RocksConstructor | undefined;

async function loadRocksDB(): Promise<RocksConstructor> {
  loaded ??= await importEngineModule<RocksConstructor>('rocksdb', PACKAGE);
  return loaded;
}

/** Imports an optional engine package's default export; a missing package becomes a typed error. */
export async function importEngineModule<T>(engine: string, packageName: string): Promise<T> {
  try {
    const mod = (await import(packageName)) as { default: T };
    return mod.default;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new KVEngineMissingError(engine, packageName, err);
    }
    throw err; // installed but broken (e.g. missing libatomic): surface the loader's own message
  }
}

async function getFrom(session: RocksSession, key: Uint8Array): Promise<Uint8Array | undefined> {
  const value = await session.get(key);
  return value === null ? undefined : asBytes(value);
}

async function* rangeOf(session: RocksSession, range: KVRange): AsyncIterable<KVEntry> {
  if (range.limit === 0) return;
  const bounds: { gte?: Uint8Array; lt?: Uint8Array; reverse?: boolean; limit?: number } = {};
  if (range.gte) bounds.gte = range.gte;
  if (range.lt) bounds.lt = range.lt;
  if (range.reverse) bounds.reverse = true;
  if (range.limit !== undefined) bounds.limit = range.limit;
  for await (const { key, value } of session.iterator(bounds)) yield [asBytes(key), asBytes(value)];
}

class RocksStore implements KVStore {
  readonly engine = 'rocksdb';
  private closed = false;
  private readonly db: RocksSession;
  private readonly path: string;

  constructor(db: RocksSession, path: string) {
    this.db = db;
    this.path = path;
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.assertOpen();
    return getFrom(this.db, key);
  }

  async has(key: Uint8Array): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  iterate(range: KVRange = {}): AsyncIterable<KVEntry> {
    this.assertOpen();
    return rangeOf(this.db, range);
  }

  async write(ops: KVOp[]): Promise<void> {
    this.assertOpen();
    assertValidOps(ops);
    if (ops.length === 0) return;
    const batch = this.db.write({ capacity: ops.length, autoDestroy: true });
    for (const op of ops) {
      if (op.type === 'put') batch.tryPut(op.key, op.value);
      else batch.tryDelete(op.key);
    }
    await batch.flush();
  }

  snapshot(): KVSnapshot {
    this.assertOpen();
    const session = this.db.snapshot();
    let released = false;
    const check = () => {
      if (released || this.closed) throw new KVClosedError('rocksdb snapshot', this.path);
    };
    const reader: KVReader = {
      get: async (key) => {
        check();
        return getFrom(session, key);
      },
      has: async (key) => (await reader.get(key)) !== undefined,
      iterate: (range = {}) => {
        check();
        return rangeOf(session, range);
      },
    };
    return {
      ...reader,
      release: () => {
        if (released) return;
        released = true;
        void session.close().catch(() => {}); // the root's close (force) also ends it
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close({ force: true });
  }

  private assertOpen(): void {
    if (this.closed) throw new KVClosedError(this.engine, this.path);
  }
}
