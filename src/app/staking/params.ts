/** Staking's params (the SDK's x/staking Params), kept as canonical JSON in the params store. */
import { fromUtf8, utf8 } from '../../primitives/bytes.ts';
import { BASE_DENOM } from '../../primitives/identity.ts';
import type { StateReader } from '../../state/overlay.ts';
import type { StateWriter } from '../state-access.ts';
import { paramsKeys, STORES } from '../store-keys.ts';
import { parseDec } from './dec.ts';
import { parseDuration } from './time.ts';

/** Tokens bonded per unit of consensus power (Cosmos' DefaultPowerReduction). */
export const POWER_REDUCTION = 1_000_000n;

export interface StakingParamsJson {
  unbonding_time: string;
  max_validators: number;
  max_entries: number;
  historical_entries: number;
  bond_denom: string;
  min_commission_rate: string;
}

export const DEFAULT_STAKING_PARAMS: StakingParamsJson = {
  unbonding_time: '1814400s',
  max_validators: 100,
  max_entries: 7,
  historical_entries: 10000,
  bond_denom: BASE_DENOM,
  min_commission_rate: '0.000000000000000000',
};

export interface StakingParams {
  unbondingTimeNs: bigint;
  maxValidators: number;
  maxEntries: number;
  historicalEntries: number;
  bondDenom: string;
  minCommissionRate: bigint;
  json: StakingParamsJson;
}

/** A genesis written before the extended params gets the defaults for what it lacks. */
export function withDefaults(p: Partial<StakingParamsJson>): StakingParamsJson {
  return { ...DEFAULT_STAKING_PARAMS, ...p };
}

export function parseParams(json: StakingParamsJson): StakingParams {
  return {
    unbondingTimeNs: parseDuration(json.unbonding_time),
    maxValidators: json.max_validators,
    maxEntries: json.max_entries,
    historicalEntries: json.historical_entries,
    bondDenom: json.bond_denom,
    minCommissionRate: parseDec(json.min_commission_rate, 'min_commission_rate'),
    json,
  };
}

export function readParams(state: StateReader): StakingParams {
  const raw = state.get(STORES.params, paramsKeys.module('staking'));
  return parseParams(withDefaults(raw ? (JSON.parse(fromUtf8(raw)) as Partial<StakingParamsJson>) : {}));
}

export function writeParams(state: StateWriter, json: StakingParamsJson): void {
  state.set(STORES.params, paramsKeys.module('staking'), utf8(JSON.stringify(json)));
}
