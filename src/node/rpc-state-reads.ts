/**
 * The RPC's reads of state at a version: State Commit for the latest state while it provably holds
 * it (SC is at that version and the next block is not stored yet: the pipeline stores a block before
 * it touches SC), the State Store otherwise; both give the same bytes. Answers are kept per version
 * (execution/version-reads.ts) and shared by the account methods (eth_getBalance, ...) and the
 * simulations of one chain, so repeated reads of a height cost no engine seek.
 */
import type { Chain } from '../chain/chain.ts';
import { readId, VersionReadCaches } from '../execution/version-reads.ts';
import type { BlockStore } from '../storage/blocks/store.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { StateStore } from '../storage/ss/types.ts';

export interface StateReadDeps {
  chain: Chain;
  blocks: BlockStore;
  ss: StateStore;
  sc?: CommitStore;
}

const caches = new WeakMap<Chain, VersionReadCaches>();

/** The read caches of `chain`'s versions, one set per chain (every RPC adapter of a node shares it). */
export function versionReads(chain: Chain): VersionReadCaches {
  let c = caches.get(chain);
  if (c === undefined) caches.set(chain, (c = new VersionReadCaches()));
  return c;
}

/** A read of (store, key) at `version`, uncached: SC's answer when it holds that version, else SS's. */
export function stateSource(
  d: Omit<StateReadDeps, 'chain'>,
): (
  store: string,
  key: Uint8Array,
  version: number,
) => Uint8Array | undefined | Promise<Uint8Array | undefined> {
  return (store, key, version) =>
    d.sc?.version === version && d.blocks.latestHeight() === version - 1
      ? d.sc.get(store, key)
      : d.ss.get(store, key, version);
}

/** `StateStore.get` through the chain's version read caches. */
export function cachedStateReads(d: StateReadDeps): Pick<StateStore, 'get'> {
  const reads = versionReads(d.chain);
  const source = stateSource(d);
  return {
    get(store, key, version) {
      const cache = reads.at(version);
      const id = readId(store, key);
      const entries = cache.entries;
      if (entries.has(id)) return Promise.resolve(entries.get(id));
      const remember = (v: Uint8Array | undefined) => {
        // a prune that raced the read may have answered from a partial history: not kept
        if (version >= d.ss.earliestVersion()) cache.set(id, v);
        return v;
      };
      try {
        const v = source(store, key, version);
        return v instanceof Promise ? v.then(remember) : Promise.resolve(remember(v));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}
