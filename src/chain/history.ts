/**
 * Reads of the state after a given block, from the State Store (which keeps history; State Commit
 * keeps only the latest). The module keepers read synchronously from the latest state; these are
 * their asynchronous counterparts for any retained height, using the same key layouts.
 */
import { leftPad32, EMPTY_CODE_HASH } from '../app/evm.ts';
import { readDecimal, readU64be } from '../app/state-access.ts';
import { bankKeys, evmKeys, STORES } from '../app/store-keys.ts';
import { BASE_DENOM, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import type { StateStore } from '../storage/ss/types.ts';
import { stateVersion } from './chain.ts';

export class HistoricalState {
  readonly height: number;
  private readonly ss: Pick<StateStore, 'get'>;
  private readonly version: number;

  constructor(ss: Pick<StateStore, 'get'>, height: number) {
    this.ss = ss;
    this.height = height;
    this.version = stateVersion(height);
  }

  get(store: string, key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.ss.get(store, key, this.version);
  }

  async balance(evmAddress: Uint8Array): Promise<bigint> {
    const owner = (await this.get(STORES.evm, evmKeys.associationByEvm(evmAddress))) ?? evmAddress;
    const [uchain, rem] = await Promise.all([
      this.get(STORES.bank, bankKeys.balance(owner, BASE_DENOM)),
      this.get(STORES.bank, bankKeys.weiRemainder(owner)),
    ]);
    return readDecimal(uchain) * WEI_PER_UCHAIN + readDecimal(rem);
  }

  async nonce(evmAddress: Uint8Array): Promise<bigint> {
    return readU64be(await this.get(STORES.evm, evmKeys.nonce(evmAddress)));
  }

  async code(evmAddress: Uint8Array): Promise<Uint8Array> {
    return (await this.get(STORES.evm, evmKeys.code(evmAddress))) ?? new Uint8Array(0);
  }

  async codeHash(evmAddress: Uint8Array): Promise<Uint8Array> {
    return (await this.get(STORES.evm, evmKeys.codeHash(evmAddress))) ?? EMPTY_CODE_HASH;
  }

  async storage(evmAddress: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return (await this.get(STORES.evm, evmKeys.storage(evmAddress, leftPad32(slot)))) ?? new Uint8Array(32);
  }
}
