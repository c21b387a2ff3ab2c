/**
 * The state after block h, for every reader outside block execution (the RPC, the Cosmos queries,
 * admission). Version h + 1 (chain.ts) is read from State Commit while SC provably holds it (SC is at
 * that version and not committing the next one: the pipeline gives a block to the State Store before
 * SC starts committing it), and from the State Store otherwise; both give the same bytes. The answers are kept per version
 * (execution/version-reads.ts), so repeated reads of a height cost no engine seek.
 *
 * Accounts are read with the app modules' own synchronous readers (app/accounts.ts): a read runs them
 * over the cached values, and when they reach a key only the State Store can answer (asynchronously),
 * it reads as absent, is loaded, and the read runs again, until a run reads nothing unloaded. So key
 * layouts and the balance rule exist once, in app/.
 */
import { AccountReader } from '../app/accounts.ts';
import { readId, type VersionReadCache, VersionReadCaches } from '../execution/version-reads.ts';
import type { StateReader } from '../state/overlay.ts';
import type { KVEntry } from '../storage/kv/types.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { StateStore } from '../storage/ss/types.ts';

export const stateVersion = (height: number): number => height + 1;

/** A read that State Commit answers at once and the State Store later. */
export type MaybeAsync<T> = T | Promise<T>;

export interface StateSources {
  /** Absent in a thread that reads only the State Store (an RPC reader thread). */
  sc?: CommitStore;
  ss: StateStore;
}

/** Every retained version of the chain's state, read where it is held and cached per version. */
export class VersionedState {
  /** The reads kept per version, shared with the simulations of the same versions. */
  readonly reads = new VersionReadCaches();
  private readonly s: StateSources;

  constructor(s: StateSources) {
    this.s = s;
  }

  /** (store, key) at `version`, uncached: SC's answer when it holds that version, else SS's. */
  source(store: string, key: Uint8Array, version: number): MaybeAsync<Uint8Array | undefined> {
    const { sc, ss } = this.s;
    return sc && sc.version === version && !sc.committing ? sc.get(store, key) : ss.get(store, key, version);
  }

  /**
   * (store, key) at `version` from State Commit, for runs that can only read synchronously (the
   * pending block); undefined once SC no longer holds that version alone (it is committing the next
   * one, or has), as the run must then start again.
   */
  committedGet(
    store: string,
    key: Uint8Array,
    version: number,
  ): { value: Uint8Array | undefined } | undefined {
    const { sc } = this.s;
    if (!sc || sc.version !== version || sc.committing) return undefined;
    return { value: sc.get(store, key) };
  }

  /** A prune that raced the read may have answered from a partial history: such an answer is not kept. */
  private keep(cache: VersionReadCache, id: string, v: Uint8Array | undefined): void {
    if (cache.version >= this.s.ss.earliestVersion()) cache.set(id, v);
  }

  /** (store, key) at `version`, through the version's cache. */
  get(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined> {
    const cache = this.reads.at(version);
    const id = readId(store, key);
    const entries = cache.entries;
    if (entries.has(id)) return Promise.resolve(entries.get(id));
    const remember = (v: Uint8Array | undefined) => {
      this.keep(cache, id, v);
      return v;
    };
    try {
      const v = this.source(store, key, version);
      return v instanceof Promise ? v.then(remember) : Promise.resolve(remember(v));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Runs the synchronous `fn` over the state at `version` (see the file comment): the values it reads
   * come from the cache or SC at once; each SS value it needs is loaded and `fn` runs again.
   */
  async read<T>(version: number, fn: (state: StateReader) => T): Promise<T> {
    const cache = this.reads.at(version);
    // values loaded for this read that the cache may not keep (a racing prune)
    const loaded = new Map<string, Uint8Array | undefined>();
    for (;;) {
      const pending: Promise<void>[] = [];
      const state: StateReader = {
        get: (store, key) => {
          const id = readId(store, key);
          const entries = cache.entries;
          const hit = entries.get(id);
          if (hit !== undefined || entries.has(id)) return hit;
          const own = loaded.get(id);
          if (own !== undefined || loaded.has(id)) return own;
          const v = this.source(store, key, version);
          if (!(v instanceof Promise)) {
            this.keep(cache, id, v);
            loaded.set(id, v);
            return v;
          }
          pending.push(
            v.then((value) => {
              this.keep(cache, id, value);
              loaded.set(id, value);
            }),
          );
          return undefined;
        },
      };
      let result: T;
      try {
        result = fn(state);
      } catch (err) {
        // a run on guessed values may fail; only one that read everything it needed is believed
        if (pending.length === 0) throw err;
        await Promise.all(pending);
        continue;
      }
      if (pending.length === 0) return result;
      await Promise.all(pending);
    }
  }

  /** Entries of `store` in [start, end) at `version`, in key order: listings come from the State Store. */
  range(
    store: string,
    start: Uint8Array,
    end: Uint8Array | undefined,
    version: number,
  ): AsyncIterable<KVEntry> {
    return this.s.ss.iterator(store, start, end, version);
  }

  /** The lowest height whose state is still readable. */
  earliestHeight(): number {
    return Math.max(0, this.s.ss.earliestVersion() - 1);
  }

  /** The state after block `height`. */
  at(height: number): StateAt {
    return new StateAt(this, height);
  }
}

/** The state after block `height`, read through the app modules' readers. */
export class StateAt {
  readonly height: number;
  readonly version: number;
  private readonly state: VersionedState;

  constructor(state: VersionedState, height: number) {
    this.state = state;
    this.height = height;
    this.version = stateVersion(height);
  }

  get(store: string, key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.state.get(store, key, this.version);
  }

  range(store: string, start: Uint8Array, end: Uint8Array | undefined): AsyncIterable<KVEntry> {
    return this.state.range(store, start, end, this.version);
  }

  /** Any synchronous read of the app modules (their readers over `state`), at this height. */
  read<T>(fn: (state: StateReader) => T): Promise<T> {
    return this.state.read(this.version, fn);
  }

  balance(address: Uint8Array): Promise<bigint> {
    return this.read((s) => new AccountReader(s).balance(address));
  }

  nonce(address: Uint8Array): Promise<bigint> {
    return this.read((s) => new AccountReader(s).nonce(address));
  }

  code(address: Uint8Array): Promise<Uint8Array> {
    return this.read((s) => new AccountReader(s).code(address));
  }

  codeHash(address: Uint8Array): Promise<Uint8Array> {
    return this.read((s) => new AccountReader(s).codeHash(address));
  }

  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return this.read((s) => new AccountReader(s).storage(address, slot));
  }
}
