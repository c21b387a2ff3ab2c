/**
 * The SDK's staking query service (cosmos.staking.v1beta1.Query) beyond the validator listing:
 * delegations, unbonding delegations, redelegations, a delegator's validators, the pools and the
 * params, read at the query height; listings paginate as the SDK's do.
 */
import {
  QueryDelegationRequest,
  QueryDelegationResponse,
  QueryDelegatorDelegationsRequest,
  QueryDelegatorDelegationsResponse,
  QueryDelegatorUnbondingDelegationsRequest,
  QueryDelegatorUnbondingDelegationsResponse,
  QueryDelegatorValidatorRequest,
  QueryDelegatorValidatorResponse,
  QueryDelegatorValidatorsRequest,
  QueryDelegatorValidatorsResponse,
  QueryParamsRequest,
  QueryParamsResponse,
  QueryPoolRequest,
  QueryPoolResponse,
  QueryRedelegationsRequest,
  QueryRedelegationsResponse,
  QueryUnbondingDelegationRequest,
  QueryUnbondingDelegationResponse,
  QueryValidatorDelegationsRequest,
  QueryValidatorDelegationsResponse,
  QueryValidatorUnbondingDelegationsRequest,
  QueryValidatorUnbondingDelegationsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import type {
  DelegationResponse,
  RedelegationResponse,
  UnbondingDelegation,
} from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { decTruncateInt, parseDec } from '../../app/staking/dec.ts';
import {
  listDelegations,
  listRedelegations,
  listUnbondingDelegations,
  listValidators,
  StakingReader,
} from '../../app/staking/reader.ts';
import type {
  DelegationRecord,
  RedelegationRecord,
  UnbondingDelegationRecord,
  ValidatorRecord,
} from '../../app/staking/records.ts';
import { tokensFromShares } from '../../app/staking/shares.ts';
import { parseDuration } from '../../app/staking/time.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import {
  address,
  decode,
  decToProto,
  notFound,
  paginate,
  type QueryHandler,
  rangesAt,
  timestamp,
  validatorProto,
} from './query-common.ts';
import type { StateView } from './types.ts';

const acc = (bech: string) => address(bech, BECH32_ACCOUNT_PREFIX);
const val = (bech: string) => address(bech, BECH32_VALOPER_PREFIX);

/** Every validator by operator bech32, at the height: a delegation's balance needs its validator. */
async function validatorsAt(state: StateView, height: number): Promise<Map<string, ValidatorRecord>> {
  return new Map(
    (await listValidators(rangesAt(state, height))).map((v) => [v.validator.operator_address, v.validator]),
  );
}

function delegationResponse(
  d: DelegationRecord,
  v: ValidatorRecord | undefined,
  denom: string,
): DelegationResponse {
  const tokens = v ? decTruncateInt(tokensFromShares(v, parseDec(d.shares))) : 0n;
  return {
    delegation: {
      delegatorAddress: d.delegator_address,
      validatorAddress: d.validator_address,
      shares: decToProto(d.shares),
    },
    balance: { denom, amount: tokens.toString() },
  };
}

function unbondingProto(u: UnbondingDelegationRecord): UnbondingDelegation {
  return {
    delegatorAddress: u.delegator_address,
    validatorAddress: u.validator_address,
    entries: u.entries.map((e) => ({
      creationHeight: BigInt(e.creation_height),
      completionTime: timestamp(e.completion_time),
      initialBalance: e.initial_balance,
      balance: e.balance,
      unbondingId: BigInt(e.unbonding_id),
      unbondingOnHoldRefCount: BigInt(e.unbonding_on_hold_ref_count),
    })),
  };
}

function redelegationResponse(r: RedelegationRecord, dst: ValidatorRecord | undefined): RedelegationResponse {
  const entries = r.entries.map((e) => ({
    creationHeight: BigInt(e.creation_height),
    completionTime: timestamp(e.completion_time),
    initialBalance: e.initial_balance,
    sharesDst: decToProto(e.shares_dst),
    unbondingId: BigInt(e.unbonding_id),
    unbondingOnHoldRefCount: BigInt(e.unbonding_on_hold_ref_count),
  }));
  return {
    redelegation: {
      delegatorAddress: r.delegator_address,
      validatorSrcAddress: r.validator_src_address,
      validatorDstAddress: r.validator_dst_address,
      entries,
    },
    entries: entries.map((redelegationEntry, i) => ({
      redelegationEntry,
      // what the entry's shares are worth at the destination now
      balance: dst
        ? decTruncateInt(tokensFromShares(dst, parseDec(r.entries[i].shares_dst))).toString()
        : '0',
    })),
  };
}

const bondDenom = (state: StateView, height: number) =>
  state.read(height, (s) => new StakingReader(s).params().bondDenom);

export const STAKING_QUERIES: Record<string, QueryHandler> = {
  '/cosmos.staking.v1beta1.Query/ValidatorDelegations': async (bytes, state, height) => {
    const req = decode(QueryValidatorDelegationsRequest, bytes);
    val(req.validatorAddr);
    const all = (await listDelegations(rangesAt(state, height))).filter(
      (d) => d.record.validator_address === req.validatorAddr,
    );
    const { items, pagination } = paginate(all, req.pagination);
    const validators = await validatorsAt(state, height);
    const denom = await bondDenom(state, height);
    return QueryValidatorDelegationsResponse.encode({
      delegationResponses: items.map((d) =>
        delegationResponse(d.record, validators.get(d.record.validator_address), denom),
      ),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/ValidatorUnbondingDelegations': async (bytes, state, height) => {
    const req = decode(QueryValidatorUnbondingDelegationsRequest, bytes);
    val(req.validatorAddr);
    const all = (await listUnbondingDelegations(rangesAt(state, height))).filter(
      (u) => u.record.validator_address === req.validatorAddr,
    );
    const { items, pagination } = paginate(all, req.pagination);
    return QueryValidatorUnbondingDelegationsResponse.encode({
      unbondingResponses: items.map((u) => unbondingProto(u.record)),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/Delegation': async (bytes, state, height) => {
    const req = decode(QueryDelegationRequest, bytes);
    const delegator = acc(req.delegatorAddr);
    const validator = val(req.validatorAddr);
    const found = await state.read(height, (s) => {
      const r = new StakingReader(s);
      const d = r.delegation(delegator, validator);
      return d && delegationResponse(d, r.validator(validator), r.params().bondDenom);
    });
    if (!found)
      throw notFound(
        `delegation with delegator ${req.delegatorAddr} not found for validator ${req.validatorAddr}`,
      );
    return QueryDelegationResponse.encode({ delegationResponse: found }).finish();
  },

  '/cosmos.staking.v1beta1.Query/UnbondingDelegation': async (bytes, state, height) => {
    const req = decode(QueryUnbondingDelegationRequest, bytes);
    const delegator = acc(req.delegatorAddr);
    const validator = val(req.validatorAddr);
    const u = await state.read(height, (s) => new StakingReader(s).unbondingDelegation(delegator, validator));
    if (!u)
      throw notFound(
        `unbonding delegation with delegator ${req.delegatorAddr} not found for validator ${req.validatorAddr}`,
      );
    return QueryUnbondingDelegationResponse.encode({ unbond: unbondingProto(u) }).finish();
  },

  '/cosmos.staking.v1beta1.Query/DelegatorDelegations': async (bytes, state, height) => {
    const req = decode(QueryDelegatorDelegationsRequest, bytes);
    const all = await listDelegations(rangesAt(state, height), acc(req.delegatorAddr));
    const { items, pagination } = paginate(all, req.pagination);
    const validators = await validatorsAt(state, height);
    const denom = await bondDenom(state, height);
    return QueryDelegatorDelegationsResponse.encode({
      delegationResponses: items.map((d) =>
        delegationResponse(d.record, validators.get(d.record.validator_address), denom),
      ),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/DelegatorUnbondingDelegations': async (bytes, state, height) => {
    const req = decode(QueryDelegatorUnbondingDelegationsRequest, bytes);
    const all = await listUnbondingDelegations(rangesAt(state, height), acc(req.delegatorAddr));
    const { items, pagination } = paginate(all, req.pagination);
    return QueryDelegatorUnbondingDelegationsResponse.encode({
      unbondingResponses: items.map((u) => unbondingProto(u.record)),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/Redelegations': async (bytes, state, height) => {
    const req = decode(QueryRedelegationsRequest, bytes);
    if (req.delegatorAddr !== '') acc(req.delegatorAddr);
    if (req.srcValidatorAddr !== '') val(req.srcValidatorAddr);
    if (req.dstValidatorAddr !== '') val(req.dstValidatorAddr);
    const all = (
      await listRedelegations(rangesAt(state, height), req.delegatorAddr ? acc(req.delegatorAddr) : undefined)
    ).filter(
      (r) =>
        (req.srcValidatorAddr === '' || r.record.validator_src_address === req.srcValidatorAddr) &&
        (req.dstValidatorAddr === '' || r.record.validator_dst_address === req.dstValidatorAddr),
    );
    if (req.delegatorAddr && req.srcValidatorAddr && req.dstValidatorAddr && all.length === 0)
      throw notFound(
        `redelegation not found for delegator address ${req.delegatorAddr} from validator address ${req.srcValidatorAddr}`,
      );
    const { items, pagination } = paginate(all, req.pagination);
    const validators = await validatorsAt(state, height);
    return QueryRedelegationsResponse.encode({
      redelegationResponses: items.map((r) =>
        redelegationResponse(r.record, validators.get(r.record.validator_dst_address)),
      ),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/DelegatorValidators': async (bytes, state, height) => {
    const req = decode(QueryDelegatorValidatorsRequest, bytes);
    const delegations = await listDelegations(rangesAt(state, height), acc(req.delegatorAddr));
    const { items, pagination } = paginate(delegations, req.pagination);
    const validators = await validatorsAt(state, height);
    return QueryDelegatorValidatorsResponse.encode({
      validators: items
        .map((d) => validators.get(d.record.validator_address))
        .filter((v): v is ValidatorRecord => v !== undefined)
        .map(validatorProto),
      pagination,
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/DelegatorValidator': async (bytes, state, height) => {
    const req = decode(QueryDelegatorValidatorRequest, bytes);
    const delegator = acc(req.delegatorAddr);
    const validator = val(req.validatorAddr);
    const found = await state.read(height, (s) => {
      const r = new StakingReader(s);
      return r.delegation(delegator, validator) ? r.validator(validator) : undefined;
    });
    if (!found)
      throw notFound(
        `delegation with delegator ${req.delegatorAddr} not found for validator ${req.validatorAddr}`,
      );
    return QueryDelegatorValidatorResponse.encode({ validator: validatorProto(found) }).finish();
  },

  '/cosmos.staking.v1beta1.Query/Pool': async (bytes, state, height) => {
    decode(QueryPoolRequest, bytes);
    const pool = await state.read(height, (s) => new StakingReader(s).pool());
    return QueryPoolResponse.encode({
      pool: { bondedTokens: pool.bonded.toString(), notBondedTokens: pool.notBonded.toString() },
    }).finish();
  },

  '/cosmos.staking.v1beta1.Query/Params': async (bytes, state, height) => {
    decode(QueryParamsRequest, bytes);
    const p = await state.read(height, (s) => new StakingReader(s).params());
    const ns = parseDuration(p.json.unbonding_time);
    return QueryParamsResponse.encode({
      params: {
        unbondingTime: { seconds: ns / 1_000_000_000n, nanos: Number(ns % 1_000_000_000n) },
        maxValidators: p.maxValidators,
        maxEntries: p.maxEntries,
        historicalEntries: p.historicalEntries,
        bondDenom: p.bondDenom,
        minCommissionRate: p.minCommissionRate.toString(),
      },
    }).finish();
  },
};
