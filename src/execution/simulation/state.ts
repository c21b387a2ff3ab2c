/**
 * State for simulations (eth_call, eth_estimateGas, eth_createAccessList): the chain's state after one
 * block, read through a source that may be asynchronous (the State Store for older heights), under a
 * write overlay that is dropped with the simulation. Nothing here is ever committed.
 *
 * The module keepers (app/evm.ts, app/bank.ts) and ChainStateManager read synchronously. Rather than
 * duplicating their key layouts and balance rules in an async form, every state-manager call runs
 * the synchronous code over a read-through cache and, when it reaches a key the cache does not hold
 * and the source can only answer asynchronously, the read throws `StateMiss`; the key is loaded and
 * the call is run again. Every call is idempotent up to its first miss (reads precede the writes
 * they depend on, and a repeated write stores the same value), so a rerun is exact. With the latest
 * state the source answers synchronously and no call ever reruns.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address } from '@ethereumjs/util';
import { Bank } from '../../app/bank.ts';
import { EMPTY_CODE_HASH, Evm, leftPad32 } from '../../app/evm.ts';
import { evmKeys, STORES } from '../../app/store-keys.ts';
import { equalBytes, toHex } from '../../primitives/bytes.ts';
import { StateOverlay, type StateReader } from '../../state/overlay.ts';
import { ChainError } from '../../util/errors.ts';
import { ChainStateManager } from '../state-manager.ts';
import { readId as idOf, type VersionReadCache } from '../version-reads.ts';
import { type NativeHost, packAccount } from './native-binding.ts';

export { VersionReadCache } from '../version-reads.ts';

/** A read of the pinned state: a value now, or a promise of it. */
export type StateSource = (
  store: string,
  key: Uint8Array,
) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

/** geth's state override of one account (eth_call's third parameter). */
export interface AccountOverride {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage: slots not listed read as zero. */
  state?: { slot: Uint8Array; value: Uint8Array }[];
  /** Sets the listed slots; the others keep their value. */
  stateDiff?: { slot: Uint8Array; value: Uint8Array }[];
  /** The precompile at `address` answers at this address instead (eth_simulateV1 only). */
  movePrecompileTo?: Uint8Array;
}

export class StateOverrideError extends ChainError {
  constructor(message: string) {
    super('SIMULATION_BAD_OVERRIDE', message);
  }
}

/**
 * Thrown by a read the source cannot answer synchronously; carries the pending load. Not an Error:
 * it never escapes `settle`, and capturing a stack per miss is most of a historical call's cost.
 */
class StateMiss {
  readonly id: string;
  readonly pending: Promise<Uint8Array | undefined>;
  constructor(id: string, pending: Promise<Uint8Array | undefined>) {
    this.id = id;
    this.pending = pending;
  }
}

/** Read-through cache over a StateSource; storage of `state`-overridden accounts reads as empty. */
class CachedSource implements StateReader {
  private readonly source: StateSource;
  private readonly cache = new Map<string, Uint8Array | undefined>();
  private readonly shared: VersionReadCache | undefined;
  private readonly clearedStorage: string[] = [];

  constructor(source: StateSource, shared?: VersionReadCache) {
    this.source = source;
    this.shared = shared;
  }

  clearStorageOf(address: Uint8Array): void {
    this.clearedStorage.push(idOf(STORES.evm, evmKeys.storagePrefix(address)));
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const id = idOf(store, key);
    if (store === STORES.evm && this.clearedStorage.some((p) => id.startsWith(p))) return undefined;
    // the version's shared reads first: they hold nearly every key a call reads
    const shared = this.shared?.entries;
    if (shared) {
      const v = shared.get(id);
      if (v !== undefined || shared.has(id)) return v;
    }
    const own = this.cache.get(id);
    if (own !== undefined || this.cache.has(id)) return own;
    const v = this.source(store, key);
    if (v instanceof Promise) throw new StateMiss(id, v);
    this.cache.set(id, v);
    this.shared?.set(id, v);
    return v;
  }

  /** Runs `fn`, loading each missing key and running it again, until it completes. */
  async settle<T>(fn: () => T | Promise<T>): Promise<T>;
  /** The same, giving up (undefined) once `misses` keys were loaded. */
  async settle<T>(fn: () => T | Promise<T>, misses: number): Promise<T | undefined>;
  async settle<T>(fn: () => T | Promise<T>, misses = Infinity): Promise<T | undefined> {
    for (let loaded = 0; ; loaded++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof StateMiss)) throw err;
        const v = await err.pending;
        this.cache.set(err.id, v);
        this.shared?.set(err.id, v);
        if (loaded + 1 >= misses) return undefined;
      }
    }
  }
}

/**
 * ethereumjs's state manager for one simulation: ChainStateManager's rules over the pinned state,
 * each call settled against the cache (see the file comment).
 */
export class SimulationStateManager implements StateManagerInterface {
  private readonly source: CachedSource;
  /** The version's shared reads; undefined once overrides make this state differ from the version's. */
  private shared: VersionReadCache | undefined;
  private readonly inner: ChainStateManager;
  readonly overlay: StateOverlay;
  readonly originalStorageCache: StateManagerInterface['originalStorageCache'];

  /** `shared`: reads of the same state version made by earlier simulations (see VersionReadCache). */
  constructor(source: StateSource, stateRoot: Uint8Array, shared?: VersionReadCache) {
    this.source = new CachedSource(source, shared);
    this.shared = shared;
    this.overlay = new StateOverlay(this.source);
    this.inner = new ChainStateManager(this.overlay, stateRoot);
    this.originalStorageCache = {
      get: (a, k) => this.source.settle(() => this.inner.originalStorageCache.get(a, k)),
      clear: () => this.inner.originalStorageCache.clear(),
    };
  }

  /** Applies geth-style state overrides to the overlay (below every checkpoint, so runs keep them). */
  async applyOverrides(overrides: readonly AccountOverride[]): Promise<void> {
    const evm = new Evm(this.overlay);
    const bank = new Bank(this.overlay);
    if (overrides.length > 0) this.shared = undefined;
    for (const o of overrides) {
      if (o.state && o.stateDiff) {
        throw new StateOverrideError(`account 0x${toHex(o.address)} has both 'state' and 'stateDiff'`);
      }
      await this.source.settle(() => {
        if (o.nonce !== undefined) evm.setNonce(o.address, o.nonce);
        if (o.code !== undefined) evm.setCode(o.address, o.code);
        if (o.balance !== undefined) bank.setWei(evm.balanceAddressOf(o.address), o.balance);
      });
      if (o.state) {
        this.source.clearStorageOf(o.address);
        // slots the overlay already wrote (an earlier override of the same account) go too
        for (const key of this.overlay.bufferedKeys(STORES.evm, evmKeys.storagePrefix(o.address)))
          this.overlay.delete(STORES.evm, key);
      }
      for (const { slot, value } of o.state ?? o.stateDiff ?? [])
        evm.setStorage(o.address, leftPad32(slot), leftPad32(value));
    }
  }

  /** Any read, settled: for callers outside ethereumjs that read state through the keepers. */
  read<T>(fn: (evm: Evm, bank: Bank) => T): Promise<T> {
    return this.source.settle(() => fn(new Evm(this.overlay), new Bank(this.overlay)));
  }

  /**
   * The state reads of a native call (native-binding.ts): the same overlay, cache and account rules
   * as getAccount/getCode/getStorage below, answered synchronously. A read the source can only answer
   * later throws out of the native call; `settle` loads it and runs the call again.
   */
  nativeHost(blockHash: (height: bigint) => Uint8Array | undefined): NativeHost {
    const evm = new Evm(this.overlay);
    const bank = new Bank(this.overlay);
    const read = (a: Uint8Array) => {
      const nonce = evm.nonce(a);
      const balance = bank.wei(evm.balanceAddressOf(a));
      const hasCode = evm.hasCode(a);
      // EIP-161, as ChainStateManager.getAccount: no nonce, balance or code is no account
      if (nonce === 0n && balance === 0n && !hasCode) return null;
      return packAccount(balance, nonce, hasCode ? evm.codeHash(a) : EMPTY_CODE_HASH);
    };
    // an account is five or six keys and two decimal decodings: the version's state is immutable, so
    // the packed account is kept beside its keys (the native simulator never writes the overlay)
    const accounts = this.shared?.nativeAccounts;
    return {
      account: (a) => {
        if (!accounts) return read(a) ?? undefined;
        const id = idOf('', a);
        let packed = accounts.get(id);
        if (packed === undefined) accounts.set(id, (packed = read(a)));
        return packed ?? undefined;
      },
      code: (a) => evm.code(a),
      storage: (a, slot) => evm.storage(a, slot),
      blockHash: (n) => blockHash(new DataView(n.buffer, n.byteOffset, 8).getBigUint64(0)),
    };
  }

  /**
   * Runs `fn` (which reads through `nativeHost`), loading each missing key and running it again, at
   * most `misses` times; undefined past that (each miss reruns all of `fn`, unlike a state-manager
   * call, so a call that reads many keys not loaded yet is better run by the JS EVM).
   */
  settleNative<T>(fn: () => T, misses: number): Promise<T | undefined> {
    return this.source.settle(fn, misses);
  }

  /**
   * geth's eth_call lets a contract be the sender (it skips EIP-3607); ethereumjs's runTx refuses a
   * sender whose code hash is not empty. Its check reads the sender before the EVM starts, so while
   * hidden (until the first message, see Simulation.run) the sender reads as code-less, and its
   * account writes keep its code.
   */
  hideCodeOf(address: Uint8Array | undefined): void {
    this.hiddenCode = address ? toHex(address) : undefined;
  }
  private hiddenCode: string | undefined;

  private hides(a: Address): boolean {
    return this.hiddenCode !== undefined && toHex(a.bytes) === this.hiddenCode;
  }

  getAccount(a: Address): Promise<Account | undefined> {
    return this.source.settle(async () => {
      const account = await this.inner.getAccount(a);
      if (!account || !this.hides(a)) return account;
      return new Account(account.nonce, account.balance, account.storageRoot, EMPTY_CODE_HASH);
    });
  }
  putAccount(a: Address, account?: Account): Promise<void> {
    return this.source.settle(async () => {
      if (account && this.hides(a)) {
        const codeHash = new Evm(this.overlay).codeHash(a.bytes);
        account = new Account(account.nonce, account.balance, account.storageRoot, codeHash);
      }
      // The EVM puts the sender and the target of every message back even when no value moved.
      // Rewriting what is there changes nothing a later read sees (the account is read again from
      // the same keys), and nothing here outlives the simulation, so only changes are written.
      if (account && unchanged(await this.inner.getAccount(a), account)) return;
      return this.inner.putAccount(a, account);
    });
  }
  deleteAccount(a: Address): Promise<void> {
    return this.source.settle(() => this.inner.deleteAccount(a));
  }
  modifyAccountFields(a: Address, fields: AccountFields): Promise<void> {
    return this.source.settle(() => this.inner.modifyAccountFields(a, fields));
  }
  putCode(a: Address, code: Uint8Array): Promise<void> {
    return this.source.settle(() => this.inner.putCode(a, code));
  }
  getCode(a: Address): Promise<Uint8Array> {
    return this.source.settle(() => this.inner.getCode(a));
  }
  getCodeSize(a: Address): Promise<number> {
    return this.source.settle(() => this.inner.getCodeSize(a));
  }
  getStorage(a: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.source.settle(() => this.inner.getStorage(a, key));
  }
  putStorage(a: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    return this.source.settle(() => this.inner.putStorage(a, key, value));
  }
  clearStorage(a: Address): Promise<void> {
    return this.inner.clearStorage(a);
  }
  checkpoint(): Promise<void> {
    return this.inner.checkpoint();
  }
  commit(): Promise<void> {
    return this.inner.commit();
  }
  revert(): Promise<void> {
    return this.inner.revert();
  }
  getStateRoot(): Promise<Uint8Array> {
    return this.inner.getStateRoot();
  }
  setStateRoot(): Promise<void> {
    return this.inner.setStateRoot();
  }
  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.inner.hasStateRoot(root);
  }
  clearCaches(): void {}
  shallowCopy(): StateManagerInterface {
    throw new ChainError('UNSUPPORTED', 'a simulation state cannot be copied');
  }
}

/** Whether putting `next` over `current` (undefined: no account) would write the same fields. */
function unchanged(current: Account | undefined, next: Account): boolean {
  if (current === undefined)
    return next.nonce === 0n && next.balance === 0n && equalBytes(next.codeHash, EMPTY_CODE_HASH);
  return (
    current.nonce === next.nonce &&
    current.balance === next.balance &&
    equalBytes(current.codeHash, next.codeHash)
  );
}
