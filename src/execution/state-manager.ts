/**
 * ethereumjs's StateManagerInterface over the chain's modules: nonces, code and storage from the evm
 * module, balances from the bank (through the address association), all reading and writing the
 * block's StateOverlay. There is no Merkle trie: the app hash is State Commit's business.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address } from '@ethereumjs/util';
import { Bank } from '../app/bank.ts';
import { EMPTY_CODE_HASH, Evm, leftPad32 } from '../app/evm.ts';
import { evmKeys, STORES } from '../app/store-keys.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { StateOverlay, type StateReader } from '../state/overlay.ts';
import { ChainError } from '../util/errors.ts';

/** keccak-256 of RLP(""): the root of an empty trie, reported as every account's storage root. */
const EMPTY_TRIE_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
);

export class ChainStateManager implements StateManagerInterface {
  readonly overlay: StateOverlay;
  private readonly evm: Evm;
  private readonly bank: Bank;
  private readonly stateRoot: Uint8Array;
  /** Slot values at the start of the current transaction, recorded at their first write in it. */
  private readonly originals = new Map<string, Uint8Array>();

  readonly originalStorageCache: StateManagerInterface['originalStorageCache'];

  constructor(overlay: StateOverlay, stateRoot: Uint8Array = new Uint8Array(32)) {
    this.overlay = overlay;
    this.evm = new Evm(overlay);
    this.bank = new Bank(overlay);
    this.stateRoot = stateRoot;
    this.originalStorageCache = {
      get: async (address: Address, key: Uint8Array) =>
        this.originals.get(slotId(address.bytes, key)) ?? this.evm.storage(address.bytes, leftPad32(key)),
      clear: () => this.originals.clear(),
    };
  }

  /**
   * ethereumjs asks for the same few accounts a dozen times per transaction, and each answer is
   * five or six reads plus decimal decoding. Fields by address, valid while every overlay write
   * since they were read was one of this manager's own (see `fresh`/`wrote`).
   */
  private readonly accounts = new Map<string, CachedAccount | null>();
  private accountsAt = -1;

  /** Drops the cached accounts if anything else wrote to the overlay (a revert included). */
  private fresh(): void {
    if (this.overlay.writeCount !== this.accountsAt) {
      this.accounts.clear();
      this.accountsAt = this.overlay.writeCount;
    }
  }

  /**
   * After this manager's own writes, which touched only `address`'s account fields (its nonce and
   * code, and the balance of its balance address, which no other EVM address shares) or storage.
   */
  private wrote(address: Uint8Array | undefined): void {
    if (address) this.accounts.delete(accountId(address));
    this.accountsAt = this.overlay.writeCount;
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const a = address.bytes;
    this.fresh();
    const id = accountId(a);
    let c = this.accounts.get(id);
    if (c === undefined) {
      const nonce = this.evm.nonce(a);
      const balance = this.bank.wei(this.evm.balanceAddressOf(a));
      const hasCode = this.evm.hasCode(a);
      // EIP-161: an account with no nonce, balance or code does not exist.
      c =
        nonce === 0n && balance === 0n && !hasCode
          ? null
          : { nonce, balance, codeHash: hasCode ? this.evm.codeHash(a) : EMPTY_CODE_HASH };
      this.accounts.set(id, c);
    }
    // a new object each time: ethereumjs modifies the accounts it is given
    return c === null ? undefined : new Account(c.nonce, c.balance, EMPTY_TRIE_ROOT, c.codeHash);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const a = address.bytes;
    this.fresh();
    this.evm.setNonce(a, account.nonce);
    this.bank.setWei(this.evm.balanceAddressOf(a), account.balance);
    // Code and its hash are written by putCode; an account put with the empty hash has lost its code
    // (a cleared EIP-7702 delegation).
    const id = accountId(a);
    const before = this.accounts.get(id);
    let codeHash = before === undefined ? undefined : (before?.codeHash ?? EMPTY_CODE_HASH);
    if (equalBytes(account.codeHash, EMPTY_CODE_HASH) && this.evm.hasCode(a)) {
      this.evm.setCode(a, new Uint8Array(0));
      codeHash = EMPTY_CODE_HASH;
    }
    this.wrote(a);
    // ethereumjs reads an account right after putting it: keep what getAccount would now read
    if (codeHash !== undefined) {
      const { nonce, balance } = account;
      const exists = nonce !== 0n || balance !== 0n || !equalBytes(codeHash, EMPTY_CODE_HASH);
      this.accounts.set(id, exists ? { nonce, balance, codeHash } : null);
    }
  }

  async deleteAccount(address: Address): Promise<void> {
    const a = address.bytes;
    this.fresh();
    this.evm.setNonce(a, 0n);
    this.bank.setWei(this.evm.balanceAddressOf(a), 0n);
    this.evm.setCode(a, new Uint8Array(0));
    this.clearBufferedStorage(a);
    this.wrote(a);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const current = (await this.getAccount(address)) ?? new Account(0n, 0n, EMPTY_TRIE_ROOT, EMPTY_CODE_HASH);
    const next = new Account(
      fields.nonce ?? current.nonce,
      fields.balance ?? current.balance,
      EMPTY_TRIE_ROOT,
      fields.codeHash ?? current.codeHash,
    );
    await this.putAccount(address, next);
  }

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    this.fresh();
    this.evm.setCode(address.bytes, code);
    this.wrote(address.bytes);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.evm.code(address.bytes);
  }

  async getCodeSize(address: Address): Promise<number> {
    return this.evm.code(address.bytes).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return this.evm.storage(address.bytes, leftPad32(key));
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const slot = leftPad32(key);
    const id = slotId(address.bytes, slot);
    if (!this.originals.has(id)) this.originals.set(id, this.evm.storage(address.bytes, slot));
    this.fresh();
    this.evm.setStorage(address.bytes, slot, value);
    this.wrote(undefined);
  }

  /**
   * Clears the slots written in this block. Slots committed before it cannot exist for the addresses
   * this is called on: since EIP-6780 only contracts created in the same transaction self-destruct,
   * and a creation target with storage is a collision the EVM refuses (EIP-7610).
   */
  async clearStorage(address: Address): Promise<void> {
    this.fresh();
    this.clearBufferedStorage(address.bytes);
    this.wrote(undefined);
  }

  private clearBufferedStorage(address: Uint8Array): void {
    for (const key of this.overlay.bufferedKeys(STORES.evm, evmKeys.storagePrefix(address))) {
      this.overlay.delete(STORES.evm, key);
    }
  }

  async checkpoint(): Promise<void> {
    this.overlay.checkpoint();
  }

  async commit(): Promise<void> {
    this.overlay.commit();
  }

  async revert(): Promise<void> {
    this.overlay.revert();
  }

  /** The app hash the block builds on: this chain commits state with IAVL/flatkv, not a trie. */
  async getStateRoot(): Promise<Uint8Array> {
    return this.stateRoot;
  }

  async setStateRoot(): Promise<void> {
    throw new ChainError(
      'UNSUPPORTED',
      'setStateRoot is not supported: state is committed by State Commit, not a trie',
    );
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalBytes(root, this.stateRoot);
  }

  clearCaches(): void {
    // no caches: every read goes to the overlay, whose base is State Commit's in-memory latest state
  }

  /** An independent view over the same committed state (for calls that must not touch the block). */
  shallowCopy(): ChainStateManager {
    return new ChainStateManager(new StateOverlay(this.baseReader()), this.stateRoot);
  }

  private baseReader(): StateReader {
    return this.overlay;
  }
}

const slotId = (address: Uint8Array, key: Uint8Array) => toHex(address) + toHex(leftPad32(key));

interface CachedAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
}

/** Map key of an address: its 20 bytes as latin1 chars. */
const accountId = (address: Uint8Array): string =>
  String.fromCharCode.apply(null, address as unknown as number[]);
