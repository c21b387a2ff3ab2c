/** x/staking's errors (codespace "staking"), with the SDK's codes and words, so clients match them. */
import { CosmosTxError, SdkCode } from '../cosmos-errors.ts';

export const StakingCode = {
  NoValidatorFound: 3,
  ValidatorOwnerExists: 4,
  ValidatorPubKeyExists: 5,
  ValidatorPubKeyTypeNotSupported: 6,
  CommissionNegative: 9,
  CommissionHuge: 10,
  CommissionGTMaxRate: 11,
  CommissionUpdateTime: 12,
  CommissionChangeRateNegative: 13,
  CommissionChangeRateGTMaxRate: 14,
  CommissionGTMaxChangeRate: 15,
  SelfDelegationBelowMinimum: 16,
  MinSelfDelegationDecreased: 17,
  NoDelegation: 19,
  InsufficientShares: 22,
  DelegationValidatorEmpty: 23,
  NotEnoughDelegationShares: 24,
  MaxUnbondingDelegationEntries: 27,
  SelfRedelegation: 29,
  TinyRedelegationAmount: 30,
  BadRedelegationDst: 31,
  TransitiveRedelegation: 32,
  MaxRedelegationEntries: 33,
  DelegatorShareExRateInvalid: 34,
  EmptyValidatorPubKey: 39,
  CommissionLTMinRate: 40,
  BadRedelegationSrc: 44,
} as const;

const MESSAGES: Record<number, string> = {
  3: 'validator does not exist',
  4: 'validator already exist for this operator address; must use new validator operator address',
  5: 'validator already exist for this pubkey; must use new validator pubkey',
  6: 'validator pubkey type is not supported',
  9: 'commission must be positive',
  10: 'commission cannot be more than 100%',
  11: 'commission cannot be more than the max rate',
  12: 'commission cannot be changed more than once in 24h',
  13: 'commission change rate must be positive',
  14: 'commission change rate cannot be more than the max rate',
  15: 'commission cannot be changed more than max change rate',
  16: "validator's self delegation must be greater than their minimum self delegation",
  17: 'minimum self delegation cannot be decrease',
  19: 'no delegation for (address, validator) tuple',
  22: 'insufficient delegation shares',
  23: 'cannot delegate to an empty validator',
  24: 'not enough delegation shares',
  27: 'too many unbonding delegation entries for (delegator, validator) tuple',
  29: 'cannot redelegate to the same validator',
  30: 'too few tokens to redelegate (truncates to zero tokens)',
  31: 'redelegation destination validator not found',
  32: 'redelegation to this validator already in progress; first redelegation to this validator must complete before next redelegation',
  33: 'too many redelegation entries for (delegator, src-validator, dst-validator) tuple',
  34: 'cannot delegate to validators with invalid (zero) ex-rate',
  39: 'empty validator public key',
  40: 'commission cannot be less than min rate',
  44: 'redelegation source validator not found',
};

/** A staking error; `detail` is prepended as the SDK's errors.Wrap does ("detail: message"). */
export function stakingError(code: number, detail?: string): CosmosTxError {
  const base = MESSAGES[code] ?? `staking error ${code}`;
  return new CosmosTxError(code, detail ? `${detail}: ${base}` : base, 'staking');
}

export const invalidRequest = (detail: string) =>
  new CosmosTxError(SdkCode.InvalidRequest, `${detail}: invalid request`);
