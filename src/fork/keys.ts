/**
 * Which keys of the chain's state a fork reads from the remote chain, and how each maps onto what
 * standard JSON-RPC can tell: an EVM account's balance (bank: uchain + wei remainder under the same 20
 * bytes), nonce, code and code hash, and its storage slots. Everything else (Cosmos accounts,
 * associations, supply, params, staking) is the local chain's alone.
 */
import { bankKeys, evmKeys, STORES } from '../app/store-keys.ts';
import { BASE_DENOM } from '../primitives/identity.ts';
import { EVM_KEY_PREFIX } from '../storage/ss/evm-keys.ts';

/**
 * What a fork stores instead of deleting a key it could read from the remote: a delete leaves the key
 * absent, which a forked read would take as "never written here" and answer with the remote's value.
 * No value of these keys is ever empty (zero amounts, nonces and empty code are deleted), so an empty
 * value cannot be mistaken for one.
 */
export const TOMBSTONE = new Uint8Array(0);

export type ForkKey =
  | { kind: 'account'; address: Uint8Array; field: AccountField }
  | { kind: 'storage'; address: Uint8Array; slot: Uint8Array };

export type AccountField = 'uchain' | 'remainder' | 'nonce' | 'code' | 'codeHash';

const ADDRESS_LEN = 20;
const UCHAIN = new TextEncoder().encode(BASE_DENOM);
/** bankKeys.balance's prefix byte, and weiRemainder's. */
const BANK_BALANCE = 0x02;
const BANK_REMAINDER = 0x05;

/** The remote's meaning of (store, key), or undefined for a key only the local chain holds. */
export function forkKeyOf(store: string, key: Uint8Array): ForkKey | undefined {
  if (store === STORES.evm) {
    switch (key[0]) {
      case EVM_KEY_PREFIX.storage:
        if (key.length !== 1 + ADDRESS_LEN + 32) return undefined;
        return { kind: 'storage', address: key.subarray(1, 21), slot: key.subarray(21) };
      case EVM_KEY_PREFIX.nonce:
        return key.length === 1 + ADDRESS_LEN ? account(key.subarray(1), 'nonce') : undefined;
      case EVM_KEY_PREFIX.code:
        return key.length === 1 + ADDRESS_LEN ? account(key.subarray(1), 'code') : undefined;
      case EVM_KEY_PREFIX.codehash:
        return key.length === 1 + ADDRESS_LEN ? account(key.subarray(1), 'codeHash') : undefined;
      default:
        return undefined;
    }
  }
  if (store === STORES.bank && key[1] === ADDRESS_LEN) {
    if (key[0] === BANK_REMAINDER && key.length === 2 + ADDRESS_LEN)
      return account(key.subarray(2), 'remainder');
    if (key[0] === BANK_BALANCE && key.length === 2 + ADDRESS_LEN + UCHAIN.length) {
      for (let i = 0; i < UCHAIN.length; i++) if (key[2 + ADDRESS_LEN + i] !== UCHAIN[i]) return undefined;
      return account(key.subarray(2, 2 + ADDRESS_LEN), 'uchain');
    }
  }
  return undefined;
}

function account(address: Uint8Array, field: AccountField): ForkKey {
  return { kind: 'account', address, field };
}

/**
 * The other half of an address's bank balance. Bank.setWei writes both halves together (a zero half
 * as a tombstone on a fork) and genesis writes the uchain half alone, so one half present locally
 * means the balance is local: the other half must not come from the remote.
 */
export function balanceSibling(k: ForkKey): { store: string; key: Uint8Array } | undefined {
  if (k.kind !== 'account') return undefined;
  if (k.field === 'uchain') return { store: STORES.bank, key: bankKeys.weiRemainder(k.address) };
  if (k.field === 'remainder') return { store: STORES.bank, key: bankKeys.balance(k.address, BASE_DENOM) };
  return undefined;
}

/** Every (store, key) of an account's fields, for caching one remote answer as all of them. */
export function accountKeys(address: Uint8Array): Record<AccountField, { store: string; key: Uint8Array }> {
  return {
    uchain: { store: STORES.bank, key: bankKeys.balance(address, BASE_DENOM) },
    remainder: { store: STORES.bank, key: bankKeys.weiRemainder(address) },
    nonce: { store: STORES.evm, key: evmKeys.nonce(address) },
    code: { store: STORES.evm, key: evmKeys.code(address) },
    codeHash: { store: STORES.evm, key: evmKeys.codeHash(address) },
  };
}
