/**
 * A forked chain's state: what the local chain holds, and below it the remote chain's state at the
 * fork block for every EVM account key the local chain has never written (keys.ts). It is applied
 * where the chain's state is read and written, by wrapping State Commit and the State Store
 * (`forkStores`), so every reader above them (block execution, replay, the pending block, eth_call
 * on either simulator, traces, the RPC's reads at any height) sees the same forked state without
 * knowing about forks.
 *
 * A local delete of such a key is stored as a TOMBSTONE (keys.ts), so "deleted here" stays distinct
 * from "never written here" in both stores and at every version: history before the delete still
 * reads the remote's value, later versions read absent, and rollback and replay need nothing extra.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { decimal, u64be } from '../app/state-access.ts';
import { fromHex } from '../primitives/bytes.ts';
import { WEI_PER_UCHAIN } from '../primitives/identity.ts';
import type { KVEntry } from '../storage/kv/types.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { ChangeSet } from '../storage/sc/types.ts';
import type { StateStore, StoreChange, SyncStateRead } from '../storage/ss/types.ts';
import type { Cached, ForkCache } from './cache.ts';
import { accountKeys, balanceSibling, type ForkKey, forkKeyOf, TOMBSTONE } from './keys.ts';
import { ForkRemoteError, type RpcCall } from './remote.ts';

/** Where a fork reads the remote: a JSON-RPC endpoint at one fixed block. */
export interface RemoteSource {
  readonly url: string;
  batchSync(calls: RpcCall[], what: string): unknown[];
}

export class ForkedState {
  private remote: RemoteSource;
  private blockTag: string;
  private readonly cache: ForkCache;

  constructor(remote: RemoteSource, blockNumber: number, cache: ForkCache) {
    this.remote = remote;
    this.blockTag = '0x' + blockNumber.toString(16);
    this.cache = cache;
  }

  /** Reads the remote at another URL or block from now on (the caller clears what no longer holds). */
  retarget(remote: RemoteSource, blockNumber: number): void {
    this.remote = remote;
    this.blockTag = '0x' + blockNumber.toString(16);
  }

  /** (store, key) given `local`, the local chain's raw read at the same version. */
  readSync(store: string, key: Uint8Array, local: SyncStateRead): Uint8Array | undefined {
    const v = local(store, key);
    if (v !== undefined) return v.length === 0 && forkKeyOf(store, key) ? undefined : v;
    const k = forkKeyOf(store, key);
    if (!k) return undefined;
    const sibling = balanceSibling(k);
    if (sibling && local(sibling.store, sibling.key) !== undefined) return undefined;
    return this.remoteValue(store, key, k);
  }

  /** readSync over an asynchronous local read (the State Store). */
  async read(
    store: string,
    key: Uint8Array,
    local: (store: string, key: Uint8Array) => Promise<Uint8Array | undefined>,
  ): Promise<Uint8Array | undefined> {
    const v = await local(store, key);
    if (v !== undefined) return v.length === 0 && forkKeyOf(store, key) ? undefined : v;
    const k = forkKeyOf(store, key);
    if (!k) return undefined;
    const sibling = balanceSibling(k);
    if (sibling && (await local(sibling.store, sibling.key)) !== undefined) return undefined;
    return this.remoteValue(store, key, k);
  }

  /** The remote's value of a fork key, fetched on first use (an account's fields all at once). */
  remoteValue(store: string, key: Uint8Array, k: ForkKey): Uint8Array | undefined {
    const hit = this.cache.get(store, key);
    if (hit !== undefined) return hit ?? undefined;
    const address = '0x' + Buffer.from(k.address).toString('hex');
    if (k.kind === 'storage') {
      const slot = '0x' + Buffer.from(k.slot).toString('hex');
      const [word] = this.remote.batchSync(
        [{ method: 'eth_getStorageAt', params: [address, slot, this.blockTag] }],
        `to read storage slot ${slot} of ${address}`,
      );
      // a word, which some nodes write without its leading zeros
      const n = this.quantity(word, 'eth_getStorageAt');
      const value = n === 0n ? null : fromHex(n.toString(16).padStart(64, '0'));
      this.cache.put([{ store, key, value }]);
      return value ?? undefined;
    }
    const [balance, nonce, code] = this.remote.batchSync(
      [
        { method: 'eth_getBalance', params: [address, this.blockTag] },
        { method: 'eth_getTransactionCount', params: [address, this.blockTag] },
        { method: 'eth_getCode', params: [address, this.blockTag] },
      ],
      `to read account ${address}`,
    );
    const wei = this.quantity(balance, 'eth_getBalance');
    const n = this.quantity(nonce, 'eth_getTransactionCount');
    const bytecode = this.bytes(code, 'eth_getCode');
    const keys = accountKeys(k.address);
    const uchain = wei / WEI_PER_UCHAIN;
    const rem = wei % WEI_PER_UCHAIN;
    const values: Record<keyof typeof keys, Cached> = {
      uchain: uchain === 0n ? null : decimal(uchain),
      remainder: rem === 0n ? null : decimal(rem),
      nonce: n === 0n ? null : u64be(n),
      code: bytecode.length === 0 ? null : bytecode,
      codeHash: bytecode.length === 0 ? null : keccak_256(bytecode),
    };
    this.cache.put(
      (Object.keys(keys) as (keyof typeof keys)[]).map((f) => ({ ...keys[f], value: values[f] })),
    );
    return values[k.field] ?? undefined;
  }

  private quantity(v: unknown, method: string): bigint {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw this.bad(method, v);
    return BigInt(v);
  }

  private bytes(v: unknown, method: string): Uint8Array {
    if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw this.bad(method, v);
    return fromHex(v);
  }

  private bad(method: string, v: unknown): ForkRemoteError {
    return new ForkRemoteError(
      this.remote.url,
      method,
      `unexpected answer ${JSON.stringify(v)?.slice(0, 100)}`,
    );
  }
}

/** A delete of a fork key becomes a tombstone (see the file comment). */
function tombstoned(store: string, key: Uint8Array, value: Uint8Array | undefined | null): boolean {
  return (value === undefined || value === null) && forkKeyOf(store, key) !== undefined;
}

/** Entries of a listing without the tombstones (the forked values themselves are never listed). */
async function* withoutTombstones(store: string, entries: AsyncIterable<KVEntry>): AsyncGenerator<KVEntry> {
  for await (const e of entries) if (!(e[1].length === 0 && forkKeyOf(store, e[0]))) yield e;
}

/**
 * `target` with some members replaced; every other member is the target's own (methods bound to it,
 * getters read on it), so the wrapped store behaves as the store in everything the fork leaves alone.
 */
function withOverrides<T extends object>(target: T, overrides: Partial<T>): T {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof T];
      const v = Reflect.get(t, prop, t);
      if (typeof v !== 'function') return v;
      let b = bound.get(prop);
      if (!b) bound.set(prop, (b = (v as (...a: unknown[]) => unknown).bind(t)));
      return b;
    },
  });
}

/** State Commit and the State Store as a forked chain reads and writes them. */
export function forkStores(
  stores: { sc: CommitStore; ss: StateStore },
  fork: ForkedState,
): { sc: CommitStore; ss: StateStore } {
  const { sc, ss } = stores;
  const scLocal: SyncStateRead = (store, key) => sc.get(store, key);
  /**
   * A block's changes hold only the keys it changed, so a balance may change in one half (uchain, or
   * the wei remainder) and not the other; but one local half means the balance is local
   * (balanceSibling). The other half is written too, with the value it has before the block (read
   * before either store applies the block: the State Store applies first, then State Commit).
   */
  const siblingsOf = (
    store: string,
    keys: Uint8Array[],
  ): { key: Uint8Array; value: Uint8Array | undefined }[] => {
    const written = new Set(keys.map((k) => Buffer.from(k).toString('latin1')));
    const out: { key: Uint8Array; value: Uint8Array | undefined }[] = [];
    for (const key of keys) {
      const k = forkKeyOf(store, key);
      const sibling = k && balanceSibling(k);
      if (!sibling || written.has(Buffer.from(sibling.key).toString('latin1'))) continue;
      if (scLocal(sibling.store, sibling.key) !== undefined) continue;
      written.add(Buffer.from(sibling.key).toString('latin1'));
      out.push({ key: sibling.key, value: fork.readSync(sibling.store, sibling.key, scLocal) });
    }
    return out;
  };
  const forkedSc = withOverrides<CommitStore>(sc, {
    get: (store, key) => fork.readSync(store, key, scLocal),
    applyChangeSets: (version, changeSets, upgrades) =>
      sc.applyChangeSets(
        version,
        changeSets.map((cs): ChangeSet => ({
          store: cs.store,
          pairs: [
            ...cs.pairs,
            ...siblingsOf(
              cs.store,
              cs.pairs.map((p) => p.key),
            ),
          ].map((p) => (tombstoned(cs.store, p.key, p.value) ? { key: p.key, value: TOMBSTONE } : p)),
        })),
        upgrades,
      ),
    iterate: (store, start, end, version, reverse) =>
      withoutTombstones(store, sc.iterate(store, start, end, version, reverse)),
  });
  const forkedSs = withOverrides<StateStore>(ss, {
    get: (store, key, version) => fork.read(store, key, (s, k) => ss.get(s, k, version)),
    has: async (store, key, version) =>
      (await fork.read(store, key, (s, k) => ss.get(s, k, version))) !== undefined,
    iterator: (store, start, end, version, reverse) =>
      withoutTombstones(store, ss.iterator(store, start, end, version, reverse)),
    syncReaderAt: async (version) => {
      const read = await ss.syncReaderAt?.(version);
      return read && ((store, key) => fork.readSync(store, key, read));
    },
    applyChangeSet: (version, changes) => {
      const byStore = new Map<string, Uint8Array[]>();
      for (const c of changes) {
        let keys = byStore.get(c.store);
        if (!keys) byStore.set(c.store, (keys = []));
        keys.push(c.key);
      }
      const siblings = [...byStore].flatMap(([store, keys]) =>
        siblingsOf(store, keys).map((p): StoreChange => ({ store, key: p.key, value: p.value ?? null })),
      );
      return ss.applyChangeSet(
        version,
        [...changes, ...siblings].map((c): StoreChange =>
          tombstoned(c.store, c.key, c.value) ? { ...c, value: TOMBSTONE } : c,
        ),
      );
    },
  });
  return { sc: forkedSc, ss: forkedSs };
}
