/**
 * Staking's reads for queries: single records over a StateReader, listings (async) over the State
 * Store's ranges, in store-key order, each with its key (what the SDK's pagination names a position by).
 */
import { fromBech32 } from '../../crypto/accounts.ts';
import { fromUtf8 } from '../../primitives/bytes.ts';
import { BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import type { StateReader } from '../../state/overlay.ts';
import { entriesUnder, type StateRanges } from '../state-access.ts';
import { STORES, stakingKeys } from '../store-keys.ts';
import { readParams, type StakingParams } from './params.ts';
import { BONDED_POOL, NOT_BONDED_POOL } from './pools.ts';
import {
  type DelegationRecord,
  type RedelegationRecord,
  StakingStoreReader,
  type UnbondingDelegationRecord,
  type ValidatorRecord,
} from './records.ts';
import { BankReader } from '../bank.ts';

export class StakingReader extends StakingStoreReader {
  constructor(state: StateReader) {
    super(state);
  }

  /** By bech32 operator address; undefined for an address that is not one. */
  validatorByBech32(operatorAddress: string): ValidatorRecord | undefined {
    let bytes: Uint8Array;
    try {
      bytes = fromBech32(operatorAddress, BECH32_VALOPER_PREFIX);
    } catch {
      return undefined;
    }
    return this.validator(bytes);
  }

  params(): StakingParams {
    return readParams(this.state);
  }

  pool(): { bonded: bigint; notBonded: bigint } {
    const bank = new BankReader(this.state);
    return { bonded: bank.uchain(BONDED_POOL), notBonded: bank.uchain(NOT_BONDED_POOL) };
  }
}

async function listUnder<T>(
  state: StateRanges,
  prefix: Uint8Array,
): Promise<{ key: Uint8Array; record: T }[]> {
  return (await entriesUnder(state, STORES.staking, prefix)).map((e) => ({
    key: e.key,
    record: JSON.parse(fromUtf8(e.value)) as T,
  }));
}

const prefixOf = (key: Uint8Array, n = 1) => key.subarray(0, n);

/** Every validator in store-key order (by operator address bytes). */
export async function listValidators(
  state: StateRanges,
): Promise<{ key: Uint8Array; validator: ValidatorRecord }[]> {
  const prefix = prefixOf(stakingKeys.validator(new Uint8Array(0)));
  return (await listUnder<ValidatorRecord>(state, prefix)).map((e) => ({ key: e.key, validator: e.record }));
}

/** Delegations; with `delegator`, only its own (a prefix scan), in (delegator, validator) order. */
export function listDelegations(state: StateRanges, delegator?: Uint8Array) {
  const all = stakingKeys.delegation(delegator ?? new Uint8Array(0), new Uint8Array(0));
  return listUnder<DelegationRecord>(state, delegator ? all.subarray(0, all.length - 1) : prefixOf(all));
}

export function listUnbondingDelegations(state: StateRanges, delegator?: Uint8Array) {
  const all = stakingKeys.unbondingDelegation(delegator ?? new Uint8Array(0), new Uint8Array(0));
  return listUnder<UnbondingDelegationRecord>(
    state,
    delegator ? all.subarray(0, all.length - 1) : prefixOf(all),
  );
}

export function listRedelegations(state: StateRanges, delegator?: Uint8Array) {
  const e = new Uint8Array(0);
  const all = stakingKeys.redelegation(delegator ?? e, e, e);
  return listUnder<RedelegationRecord>(state, delegator ? all.subarray(0, all.length - 2) : prefixOf(all));
}
