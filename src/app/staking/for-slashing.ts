/**
 * What slashing needs of staking, and nothing more: find a validator by its consensus address, jail,
 * unjail and slash it. Slashing imports this; staking implements it over the block's state.
 */
import type { StateWriter } from '../state-access.ts';
import { decTruncateInt, parseDec } from './dec.ts';
import { Staking } from './keeper.ts';
import { POWER_REDUCTION } from './params.ts';
import { consAddressOf, consPubKey, operatorBytes, type ValidatorRecord } from './records.ts';
import { tokensFromShares } from './shares.ts';

export type BondStatus = 'BOND_STATUS_BONDED' | 'BOND_STATUS_UNBONDING' | 'BOND_STATUS_UNBONDED';

export interface ValidatorForSlashing {
  /** Operator address bytes (the valoper's 20 bytes). */
  operator: Uint8Array;
  /** 20-byte consensus address: the first 20 bytes of SHA-256 of the Ed25519 key. */
  consAddress: Uint8Array;
  jailed: boolean;
  status: BondStatus;
  tokens: bigint;
  minSelfDelegation: bigint;
}

export interface StakingForSlashing {
  validatorByConsAddr(consAddress: Uint8Array): ValidatorForSlashing | undefined;
  validatorByOperator(operator: Uint8Array): ValidatorForSlashing | undefined;
  /** The tokens the operator's own delegation to its validator is worth (truncated); 0n without one. */
  selfDelegationTokens(operator: Uint8Array): bigint;
  /**
   * Slashes `fraction` (a LegacyDec, staking/dec.ts) of `power` × the power reduction, as the SDK's
   * Keeper.Slash: unbonding delegations and redelegations from the validator that started at or after
   * `infractionHeight` first, the rest from the validator's tokens (at most what it has), burned from
   * the pool that holds them. Returns the tokens burned. A validator not found burns nothing.
   */
  slash(consAddress: Uint8Array, infractionHeight: number, power: bigint, fraction: bigint): bigint;
  /** Marks the validator jailed; the end of the block takes it out of the bonded set. */
  jail(consAddress: Uint8Array): void;
  /** Clears the jailed flag; the end of the block may bond it again. */
  unjail(operator: Uint8Array): void;
}

/**
 * Staking over the block's state at `height` (the block being executed). `timeNs`, the block's time
 * in nanoseconds, tells which unbonding entries have matured and are out of a slash's reach.
 */
export function stakingForSlashing(state: StateWriter, height: number, timeNs = 0n): StakingForSlashing {
  const k = new Staking(state, { height, timeNs });
  const view = (v: ValidatorRecord | undefined): ValidatorForSlashing | undefined =>
    v && {
      operator: operatorBytes(v),
      consAddress: consAddressOf(consPubKey(v)),
      jailed: v.jailed,
      status: v.status,
      tokens: BigInt(v.tokens),
      minSelfDelegation: BigInt(v.min_self_delegation),
    };
  return {
    validatorByConsAddr: (consAddress) => view(k.validatorByConsAddr(consAddress)),
    validatorByOperator: (operator) => view(k.validator(operator)),
    selfDelegationTokens(operator) {
      const v = k.validator(operator);
      const d = k.delegation(operator, operator);
      return v && d ? decTruncateInt(tokensFromShares(v, parseDec(d.shares))) : 0n;
    },
    slash(consAddress, infractionHeight, power, fraction) {
      const v = k.validatorByConsAddr(consAddress);
      return v ? k.slash(operatorBytes(v), infractionHeight, power, fraction, POWER_REDUCTION) : 0n;
    },
    jail(consAddress) {
      const v = k.validatorByConsAddr(consAddress);
      if (v) k.setJailed(operatorBytes(v), true);
    },
    unjail: (operator) => k.setJailed(operator, false),
  };
}
