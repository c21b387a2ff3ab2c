/**
 * Staking's genesis: params, validators, their delegations and the last powers (the bonded set
 * CometBFT starts with). The pools' balances come with bank's; they must hold the validators'
 * tokens, and CometBFT's genesis validators must be the bonded set with the same powers.
 */
import { fromBech32, toBech32 } from '../../crypto/accounts.ts';
import { toHex } from '../../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { BankReader } from '../bank.ts';
import { type Genesis, GenesisError, POWER_REDUCTION, type StakingValidator } from '../genesis.ts';
import type { StateWriter } from '../state-access.ts';
import { formatDec, parseDec } from './dec.ts';
import { bondedSet } from './end-block.ts';
import { withDefaults, writeParams } from './params.ts';
import { BONDED_POOL, NOT_BONDED_POOL } from './pools.ts';
import { consAddressOf, consPubKey, operatorBytes, StakingStore } from './records.ts';
import { ZERO_TIME } from './time.ts';

export interface GenesisDelegation {
  delegator_address: string;
  validator_address: string;
  shares: string;
}

/** A validator record as stored: fields a genesis may leave out get the SDK's defaults. */
export function withRecordDefaults(v: StakingValidator): StakingValidator {
  return { ...v, unbonding_height: v.unbonding_height ?? '0', unbonding_time: v.unbonding_time ?? ZERO_TIME };
}

/** The self-delegation that bonds a genesis validator's tokens: from the account with its operator's bytes. */
export function selfDelegation(v: StakingValidator): GenesisDelegation {
  return {
    delegator_address: toBech32(BECH32_ACCOUNT_PREFIX, fromBech32(v.operator_address, BECH32_VALOPER_PREFIX)),
    validator_address: v.operator_address,
    shares: v.delegator_shares,
  };
}

export function initStakingGenesis(genesis: Genesis, state: StateWriter): void {
  const app = genesis.app_state.staking;
  const fail = (field: string, problem: string): never => {
    throw new GenesisError(`genesis.json: app_state.staking.${field}: ${problem}`);
  };
  const params = withDefaults(app.params);
  writeParams(state, params);
  const store = new StakingStore(state);
  let bonded = 0n;
  let notBonded = 0n;
  for (const [i, raw] of app.validators.entries()) {
    const v = withRecordDefaults(raw);
    try {
      parseDec(v.delegator_shares);
      operatorBytes(v);
    } catch (err) {
      fail(`validators[${i}]`, (err as Error).message);
    }
    if (v.status === 'BOND_STATUS_BONDED') bonded += BigInt(v.tokens);
    else notBonded += BigInt(v.tokens);
    store.setValidator(v);
  }
  for (const [i, d] of (app.delegations ?? []).entries()) {
    let delegator: Uint8Array;
    let validator: Uint8Array;
    try {
      delegator = fromBech32(d.delegator_address, BECH32_ACCOUNT_PREFIX);
      validator = fromBech32(d.validator_address, BECH32_VALOPER_PREFIX);
    } catch (err) {
      return fail(`delegations[${i}]`, (err as Error).message);
    }
    if (!store.validator(validator)) fail(`delegations[${i}].validator_address`, 'no such validator');
    store.setDelegation(delegator, validator, { ...d, shares: formatDec(parseDec(d.shares)) });
  }
  const bank = new BankReader(state);
  const pools: [string, Uint8Array, bigint][] = [
    ['bonded_tokens_pool', BONDED_POOL, bonded],
    ['not_bonded_tokens_pool', NOT_BONDED_POOL, notBonded],
  ];
  for (const [name, addr, want] of pools)
    if (bank.uchain(addr) !== want)
      throw new GenesisError(
        `genesis.json: the ${name} balance is ${bank.uchain(addr)}uchain but its validators hold ${want}uchain: fund ${toBech32(BECH32_ACCOUNT_PREFIX, addr)} in app_state.bank.balances`,
      );
  const set = app.validators.map(withRecordDefaults).filter((v) => v.status === 'BOND_STATUS_BONDED');
  store.setLastPowers(
    set
      .map((v) => ({
        operator: toHex(operatorBytes(v)),
        power: (BigInt(v.tokens) / POWER_REDUCTION).toString(),
      }))
      .sort((a, b) => a.operator.localeCompare(b.operator)),
  );
}

/**
 * `start`'s check: CometBFT's genesis validators (address, power) must be the staking bonded set,
 * or the first block's validator updates would disagree with what CometBFT runs.
 */
export function checkGenesisValidators(genesis: Genesis, file = 'genesis.json'): void {
  const app = genesis.app_state.staking;
  const maxValidators = withDefaults(app.params).max_validators;
  const staking = bondedSet(
    app.validators.filter((v) => v.status === 'BOND_STATUS_BONDED').map(withRecordDefaults),
    maxValidators,
  )
    .map((v) => `${toHex(consAddressOf(consPubKey(v))).toUpperCase()}:${BigInt(v.tokens) / POWER_REDUCTION}`)
    .sort();
  const comet = genesis.validators.map((v) => `${v.address.toUpperCase()}:${BigInt(v.power)}`).sort();
  if (staking.join() !== comet.join())
    throw new GenesisError(
      `${file}: validators (${comet.join(', ') || 'none'}) differ from the staking bonded set (${staking.join(', ') || 'none'}) in app_state.staking.validators: CometBFT's genesis validators must be the bonded validators with power = tokens / ${POWER_REDUCTION}`,
    );
}
