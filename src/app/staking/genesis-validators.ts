/**
 * Genesis validators as staking sees them: the defaults a genesis may leave out, the self-delegation
 * that bonds each one, and `start`'s check that CometBFT's validators are the bonded set.
 */
import { fromBech32, toBech32 } from '../../crypto/accounts.ts';
import { toHex } from '../../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { bondedSet } from './end-block.ts';
import { POWER_REDUCTION, type StakingParamsJson, withDefaults } from './params.ts';
import { consAddressOf, consPubKey, type ValidatorRecord } from './records.ts';
import { ZERO_TIME } from './time.ts';

export interface GenesisDelegation {
  delegator_address: string;
  validator_address: string;
  shares: string;
}

/** A validator record as stored: fields a genesis may leave out get the SDK's defaults. */
export function withRecordDefaults(v: ValidatorRecord): ValidatorRecord {
  return { ...v, unbonding_height: v.unbonding_height ?? '0', unbonding_time: v.unbonding_time ?? ZERO_TIME };
}

/** The self-delegation that bonds a genesis validator's tokens: from the account with its operator's bytes. */
export function selfDelegation(v: ValidatorRecord): GenesisDelegation {
  return {
    delegator_address: toBech32(BECH32_ACCOUNT_PREFIX, fromBech32(v.operator_address, BECH32_VALOPER_PREFIX)),
    validator_address: v.operator_address,
    shares: v.delegator_shares,
  };
}

/**
 * `start`'s check: CometBFT's genesis validators (address, power) must be the staking bonded set,
 * or the first block's validator updates would disagree with what CometBFT runs.
 */
export function checkGenesisValidators(
  comet: { address: string; power: string }[],
  app: { params: Partial<StakingParamsJson>; validators: ValidatorRecord[] },
): string | undefined {
  const maxValidators = withDefaults(app.params).max_validators;
  const staking = bondedSet(
    app.validators.filter((v) => v.status === 'BOND_STATUS_BONDED').map(withRecordDefaults),
    maxValidators,
  )
    .map((v) => `${toHex(consAddressOf(consPubKey(v))).toUpperCase()}:${BigInt(v.tokens) / POWER_REDUCTION}`)
    .sort();
  const set = comet.map((v) => `${v.address.toUpperCase()}:${BigInt(v.power)}`).sort();
  if (staking.join() === set.join()) return undefined;
  return `validators (${set.join(', ') || 'none'}) differ from the staking bonded set (${staking.join(', ') || 'none'}) in app_state.staking.validators: CometBFT's genesis validators must be the bonded validators with power = tokens / ${POWER_REDUCTION}`;
}
