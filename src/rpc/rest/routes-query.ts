/**
 * Module queries (staking, bank, auth): the gateway's mapping of a URL onto a gRPC query request,
 * answered by the node's query services at the height the `x-cosmos-block-height` header selects,
 * which the response echoes in the same header (as the SDK's gRPC server sets it).
 */
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import {
  QueryValidatorRequest,
  QueryValidatorResponse,
  QueryValidatorsRequest,
  QueryValidatorsResponse,
  QueryValidatorDelegationsRequest,
  QueryValidatorDelegationsResponse,
  QueryValidatorUnbondingDelegationsRequest,
  QueryValidatorUnbondingDelegationsResponse,
  QueryDelegationRequest,
  QueryDelegationResponse,
  QueryUnbondingDelegationRequest,
  QueryUnbondingDelegationResponse,
  QueryDelegatorDelegationsRequest,
  QueryDelegatorDelegationsResponse,
  QueryDelegatorUnbondingDelegationsRequest,
  QueryDelegatorUnbondingDelegationsResponse,
  QueryRedelegationsRequest,
  QueryRedelegationsResponse,
  QueryDelegatorValidatorsRequest,
  QueryDelegatorValidatorsResponse,
  QueryDelegatorValidatorRequest,
  QueryDelegatorValidatorResponse,
  QueryPoolRequest,
  QueryPoolResponse,
  QueryParamsRequest,
  QueryParamsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import {
  delegationResponseJson,
  poolJson,
  redelegationResponseJson,
  stakingParamsJson,
  unbondingDelegationJson,
} from './staking-json.ts';
import { anyJson, coinJson, type Json, pageResponseJson, validatorJson } from './json.ts';
import { HEIGHT_HEADER, pageRequest, queryHeight } from './params.ts';
import type { RestRequest, RestResult, Route } from './route.ts';

interface Codec<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}

/** Runs one gRPC query at the requested height and converts its response. */
export function queryRoute<Req, Res>(
  template: string,
  path: string,
  codecs: { req: Codec<Req>; res: Codec<Res> },
  request: (r: RestRequest) => Req,
  json: (res: Res) => Json,
): Route {
  return {
    method: 'GET',
    template,
    handle: async (r, { deps }): Promise<RestResult> => {
      const message = request(r);
      const height = queryHeight(r.headers[HEIGHT_HEADER], deps);
      const out = await deps.query(path, codecs.req.encode(message).finish(), height);
      return { body: json(codecs.res.decode(out)), headers: { [HEIGHT_HEADER]: String(height) } };
    },
  };
}

export const QUERY_ROUTES: Route[] = [
  queryRoute(
    '/cosmos/staking/v1beta1/validators',
    '/cosmos.staking.v1beta1.Query/Validators',
    { req: QueryValidatorsRequest, res: QueryValidatorsResponse },
    (r) => ({ status: r.query.get('status') ?? '', pagination: pageRequest(r.query) }),
    (res) => ({
      validators: res.validators.map(validatorJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/validators/{validator_addr}',
    '/cosmos.staking.v1beta1.Query/Validator',
    { req: QueryValidatorRequest, res: QueryValidatorResponse },
    (r) => ({ validatorAddr: r.path.validator_addr }),
    (res) => ({ validator: validatorJson(res.validator) }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/validators/{validator_addr}/delegations',
    '/cosmos.staking.v1beta1.Query/ValidatorDelegations',
    { req: QueryValidatorDelegationsRequest, res: QueryValidatorDelegationsResponse },
    (r) => ({ validatorAddr: r.path.validator_addr, pagination: pageRequest(r.query) }),
    (res) => ({
      delegation_responses: res.delegationResponses.map(delegationResponseJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/validators/{validator_addr}/unbonding_delegations',
    '/cosmos.staking.v1beta1.Query/ValidatorUnbondingDelegations',
    { req: QueryValidatorUnbondingDelegationsRequest, res: QueryValidatorUnbondingDelegationsResponse },
    (r) => ({ validatorAddr: r.path.validator_addr, pagination: pageRequest(r.query) }),
    (res) => ({
      unbonding_responses: res.unbondingResponses.map(unbondingDelegationJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}',
    '/cosmos.staking.v1beta1.Query/Delegation',
    { req: QueryDelegationRequest, res: QueryDelegationResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, validatorAddr: r.path.validator_addr }),
    (res) => ({ delegation_response: delegationResponseJson(res.delegationResponse) }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}/unbonding_delegation',
    '/cosmos.staking.v1beta1.Query/UnbondingDelegation',
    { req: QueryUnbondingDelegationRequest, res: QueryUnbondingDelegationResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, validatorAddr: r.path.validator_addr }),
    (res) => ({ unbond: unbondingDelegationJson(res.unbond) }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/delegations/{delegator_addr}',
    '/cosmos.staking.v1beta1.Query/DelegatorDelegations',
    { req: QueryDelegatorDelegationsRequest, res: QueryDelegatorDelegationsResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, pagination: pageRequest(r.query) }),
    (res) => ({
      delegation_responses: res.delegationResponses.map(delegationResponseJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/delegators/{delegator_addr}/unbonding_delegations',
    '/cosmos.staking.v1beta1.Query/DelegatorUnbondingDelegations',
    { req: QueryDelegatorUnbondingDelegationsRequest, res: QueryDelegatorUnbondingDelegationsResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, pagination: pageRequest(r.query) }),
    (res) => ({
      unbonding_responses: res.unbondingResponses.map(unbondingDelegationJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/delegators/{delegator_addr}/redelegations',
    '/cosmos.staking.v1beta1.Query/Redelegations',
    { req: QueryRedelegationsRequest, res: QueryRedelegationsResponse },
    (r) => ({
      delegatorAddr: r.path.delegator_addr,
      srcValidatorAddr: r.query.get('src_validator_addr') ?? '',
      dstValidatorAddr: r.query.get('dst_validator_addr') ?? '',
      pagination: pageRequest(r.query),
    }),
    (res) => ({
      redelegation_responses: res.redelegationResponses.map(redelegationResponseJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/delegators/{delegator_addr}/validators',
    '/cosmos.staking.v1beta1.Query/DelegatorValidators',
    { req: QueryDelegatorValidatorsRequest, res: QueryDelegatorValidatorsResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, pagination: pageRequest(r.query) }),
    (res) => ({
      validators: res.validators.map(validatorJson),
      pagination: pageResponseJson(res.pagination),
    }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/delegators/{delegator_addr}/validators/{validator_addr}',
    '/cosmos.staking.v1beta1.Query/DelegatorValidator',
    { req: QueryDelegatorValidatorRequest, res: QueryDelegatorValidatorResponse },
    (r) => ({ delegatorAddr: r.path.delegator_addr, validatorAddr: r.path.validator_addr }),
    (res) => ({ validator: validatorJson(res.validator) }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/pool',
    '/cosmos.staking.v1beta1.Query/Pool',
    { req: QueryPoolRequest, res: QueryPoolResponse },
    () => ({}),
    (res) => ({ pool: poolJson(res.pool) }),
  ),
  queryRoute(
    '/cosmos/staking/v1beta1/params',
    '/cosmos.staking.v1beta1.Query/Params',
    { req: QueryParamsRequest, res: QueryParamsResponse },
    () => ({}),
    (res) => ({ params: stakingParamsJson(res.params) }),
  ),
  queryRoute(
    '/cosmos/bank/v1beta1/balances/{address}',
    '/cosmos.bank.v1beta1.Query/AllBalances',
    { req: QueryAllBalancesRequest, res: QueryAllBalancesResponse },
    (r) => ({
      address: r.path.address,
      pagination: pageRequest(r.query),
      resolveDenom: false,
    }),
    (res) => ({ balances: res.balances.map(coinJson), pagination: pageResponseJson(res.pagination) }),
  ),
  queryRoute(
    '/cosmos/bank/v1beta1/balances/{address}/by_denom',
    '/cosmos.bank.v1beta1.Query/Balance',
    { req: QueryBalanceRequest, res: QueryBalanceResponse },
    (r) => ({ address: r.path.address, denom: r.query.get('denom') ?? '' }),
    (res) => ({ balance: res.balance ? coinJson(res.balance) : null }),
  ),
  queryRoute(
    '/cosmos/auth/v1beta1/accounts/{address}',
    '/cosmos.auth.v1beta1.Query/Account',
    { req: QueryAccountRequest, res: QueryAccountResponse },
    (r) => ({ address: r.path.address }),
    (res) => ({ account: anyJson(res.account) }),
  ),
];
