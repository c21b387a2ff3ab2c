/**
 * Accounts: account numbers, sequences and public keys, stored as the Cosmos SDK stores them
 * (`google.protobuf.Any` of a `BaseAccount`) so that Cosmos clients can decode query answers.
 */
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { Any } from 'cosmjs-types/google/protobuf/any';
import { toAccAddress } from '../crypto/accounts.ts';
import type { StateReader } from '../state/overlay.ts';
import { readU64be, type StateWriter, u64be } from './state-access.ts';
import { accKeys, STORES } from './store-keys.ts';

export const BASE_ACCOUNT_TYPE = '/cosmos.auth.v1beta1.BaseAccount';
export const SECP256K1_PUBKEY_TYPE = '/cosmos.crypto.secp256k1.PubKey';

export interface AccountRecord {
  address: Uint8Array;
  accountNumber: bigint;
  sequence: bigint;
  /** 33-byte compressed secp256k1 key, once known */
  pubKey?: Uint8Array;
}

export function encodeAccount(a: AccountRecord): Uint8Array {
  const pubKey = a.pubKey
    ? Any.fromPartial({ typeUrl: SECP256K1_PUBKEY_TYPE, value: PubKey.encode({ key: a.pubKey }).finish() })
    : undefined;
  const base = BaseAccount.encode({
    address: toAccAddress(a.address),
    pubKey,
    accountNumber: a.accountNumber,
    sequence: a.sequence,
  }).finish();
  return Any.encode({ typeUrl: BASE_ACCOUNT_TYPE, value: base }).finish();
}

export function decodeAccount(address: Uint8Array, bytes: Uint8Array): AccountRecord {
  const any = Any.decode(bytes);
  if (any.typeUrl !== BASE_ACCOUNT_TYPE) throw new Error(`unsupported account type ${any.typeUrl}`);
  const base = BaseAccount.decode(any.value);
  return {
    address,
    accountNumber: base.accountNumber,
    sequence: base.sequence,
    pubKey: base.pubKey ? PubKey.decode(base.pubKey.value).key : undefined,
  };
}

export class AuthReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  account(addr: Uint8Array): AccountRecord | undefined {
    const bytes = this.state.get(STORES.acc, accKeys.account(addr));
    return bytes ? decodeAccount(addr, bytes) : undefined;
  }

  /** The account as stored, an Any of a BaseAccount: what the SDK's account query answers with. */
  accountAny(addr: Uint8Array): Any | undefined {
    const bytes = this.state.get(STORES.acc, accKeys.account(addr));
    return bytes ? Any.decode(bytes) : undefined;
  }
}

export class Auth extends AuthReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  /** The account, created with the next account number if it does not exist yet. */
  ensureAccount(addr: Uint8Array): AccountRecord {
    const existing = this.account(addr);
    if (existing) return existing;
    const accountNumber = readU64be(this.writer.get(STORES.acc, accKeys.nextAccountNumber));
    this.writer.set(STORES.acc, accKeys.nextAccountNumber, u64be(accountNumber + 1n));
    const created = { address: addr, accountNumber, sequence: 0n };
    this.setAccount(created);
    return created;
  }

  setAccount(a: AccountRecord): void {
    this.writer.set(STORES.acc, accKeys.account(a.address), encodeAccount(a));
  }
}
