/** x/slashing's registered errors (codespace "slashing"), with the SDK's codes and wording. */
import { CosmosTxError } from '../cosmos-errors.ts';

export const SlashingCode = {
  NoValidatorForAddress: 2,
  BadValidatorAddr: 3,
  ValidatorJailed: 4,
  ValidatorNotJailed: 5,
  MissingSelfDelegation: 6,
  SelfDelegationTooLowToUnjail: 7,
  NoSigningInfoFound: 8,
  ValidatorTombstoned: 9,
} as const;

const TEXT: Record<number, string> = {
  [SlashingCode.NoValidatorForAddress]: 'address is not associated with any known validator',
  [SlashingCode.BadValidatorAddr]: 'validator does not exist for that address',
  [SlashingCode.ValidatorJailed]: 'validator still jailed; cannot be unjailed',
  [SlashingCode.ValidatorNotJailed]: 'validator not jailed; cannot be unjailed',
  [SlashingCode.MissingSelfDelegation]: 'validator has no self-delegation; cannot be unjailed',
  [SlashingCode.SelfDelegationTooLowToUnjail]:
    "validator's self delegation less than minimum; cannot be unjailed",
  [SlashingCode.NoSigningInfoFound]: 'no validator signing info found',
  [SlashingCode.ValidatorTombstoned]: 'validator already tombstoned',
};

/** The error as errorsmod words it: `<context>: <registered text>`, or the registered text alone. */
export function slashingError(code: number, context?: string): CosmosTxError {
  const text = TEXT[code];
  return new CosmosTxError(code, context ? `${context}: ${text}` : text, 'slashing');
}
