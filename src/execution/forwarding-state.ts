/**
 * A state manager that forwards every call to another one, chosen at call time. A pooled VM is built
 * once over one of these (building a VM — EVM, opcode table, precompiles, journal — costs about as
 * much as a cheap transaction), and each user of the VM points it at its own state for as long as it
 * holds the VM.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import type { Account, Address } from '@ethereumjs/util';
import type { ErrorCode } from '../util/error-codes.ts';
import { ChainError } from '../util/errors.ts';

export class ForwardingStateManager<T extends StateManagerInterface> implements StateManagerInterface {
  private readonly target: () => T | undefined;
  private readonly unowned: ErrorCode;
  readonly originalStorageCache: StateManagerInterface['originalStorageCache'];

  /**
   * `target`: the state manager of the VM's current user, undefined between users; `unowned`: the
   * code of the error a call between users throws.
   */
  constructor(target: () => T | undefined, unowned: ErrorCode) {
    this.target = target;
    this.unowned = unowned;
    this.originalStorageCache = {
      get: (a, k) => this.t.originalStorageCache.get(a, k),
      clear: () => this.target()?.originalStorageCache.clear(),
    };
  }
  private get t(): T {
    const t = this.target();
    if (!t) throw new ChainError(this.unowned, 'a pooled VM was used without an owner');
    return t;
  }
  getAccount = (a: Address) => this.t.getAccount(a);
  putAccount = (a: Address, account?: Account) => this.t.putAccount(a, account);
  deleteAccount = (a: Address) => this.t.deleteAccount(a);
  modifyAccountFields = (a: Address, f: AccountFields) => this.t.modifyAccountFields(a, f);
  putCode = (a: Address, code: Uint8Array) => this.t.putCode(a, code);
  getCode = (a: Address) => this.t.getCode(a);
  getCodeSize = (a: Address) => this.t.getCodeSize(a);
  getStorage = (a: Address, k: Uint8Array) => this.t.getStorage(a, k);
  putStorage = (a: Address, k: Uint8Array, v: Uint8Array) => this.t.putStorage(a, k, v);
  clearStorage = (a: Address) => this.t.clearStorage(a);
  checkpoint = () => this.t.checkpoint();
  commit = () => this.t.commit();
  revert = () => this.t.revert();
  getStateRoot = () => this.t.getStateRoot();
  setStateRoot = (root: Uint8Array, clearCache?: boolean) => this.t.setStateRoot(root, clearCache);
  hasStateRoot = (root: Uint8Array) => this.t.hasStateRoot(root);
  clearCaches(): void {}
  shallowCopy(): StateManagerInterface {
    throw new ChainError('UNSUPPORTED', 'a pooled VM state cannot be copied');
  }
}
