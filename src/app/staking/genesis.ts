/**
 * Staking's genesis written into the stores: params, validators, their delegations and the last
 * powers (the bonded set CometBFT starts with). The pools' balances come with bank's; they must hold
 * the validators' tokens.
 */
import { fromBech32, toBech32 } from '../../crypto/accounts.ts';
import { toHex } from '../../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { BankReader } from '../bank.ts';
import { type Genesis, GenesisError } from '../genesis.ts';
import { POWER_REDUCTION } from './params.ts';
import { withRecordDefaults } from './genesis-validators.ts';
import type { StateWriter } from '../state-access.ts';
import { formatDec, parseDec } from './dec.ts';
import { withDefaults, writeParams } from './params.ts';
import { BONDED_POOL, NOT_BONDED_POOL } from './pools.ts';
import { operatorBytes, StakingStore } from './records.ts';

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
