/**
 * The values a fork has read from its remote, kept in the home beside the chain's stores: a restart
 * replays the stored blocks, and their re-execution must read what the first execution read, even
 * when the remote has pruned that state or is gone. A value fetched at the fixed fork block never
 * changes, so the cache is never invalidated (a new fork target starts a new cache).
 */
import { readId } from '../execution/version-reads.ts';
import type { KVStore } from '../storage/kv/types.ts';

/** A cached read: the value, or null for a key the remote does not hold. */
export type Cached = Uint8Array | null;

const ABSENT = 0;
const PRESENT = 1;

export class ForkCache {
  private readonly db: KVStore;
  private readonly memory = new Map<string, Cached>();
  private writing: Promise<void> = Promise.resolve();
  private failed: unknown;

  constructor(db: KVStore) {
    this.db = db;
  }

  /** The cached read of (store, key), or undefined when it was never fetched. */
  get(store: string, key: Uint8Array): Cached | undefined {
    const id = readId(store, key);
    const hit = this.memory.get(id);
    if (hit !== undefined) return hit;
    const stored = this.db.getSync?.(dbKey(store, key));
    if (stored === undefined) return undefined;
    const v = stored[0] === PRESENT ? stored.subarray(1) : null;
    this.memory.set(id, v);
    return v;
  }

  /**
   * Remembers fetched values. The database write is not awaited by the read that fetched them (reads
   * are synchronous); a crash before it lands only means the next start fetches them again.
   */
  put(entries: { store: string; key: Uint8Array; value: Cached }[]): void {
    if (this.failed) throw this.failed;
    for (const e of entries) this.memory.set(readId(e.store, e.key), e.value);
    const ops = entries.map((e) => ({
      type: 'put' as const,
      key: dbKey(e.store, e.key),
      value: e.value === null ? Uint8Array.of(ABSENT) : prefixed(e.value),
    }));
    this.writing = this.writing
      .then(() => this.db.write(ops))
      .catch((err: unknown) => {
        this.failed = err;
      });
  }

  /** Forgets every value (a new fork target). */
  async clear(): Promise<void> {
    await this.flush();
    this.memory.clear();
    const ops = [];
    for await (const [key] of this.db.iterate()) ops.push({ type: 'del' as const, key });
    if (ops.length > 0) await this.db.write(ops);
  }

  get size(): number {
    return this.memory.size;
  }

  async flush(): Promise<void> {
    await this.writing;
    if (this.failed) throw this.failed;
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.db.close();
    }
  }
}

/** `store ‖ 0x00 ‖ key`: store names hold no NUL. */
function dbKey(store: string, key: Uint8Array): Uint8Array {
  const s = new TextEncoder().encode(store);
  const out = new Uint8Array(s.length + 1 + key.length);
  out.set(s);
  out.set(key, s.length + 1);
  return out;
}

function prefixed(v: Uint8Array): Uint8Array {
  const out = new Uint8Array(v.length + 1);
  out[0] = PRESENT;
  out.set(v, 1);
  return out;
}
