/**
 * The gRPC services the node serves, as grpc-js service definitions built by hand from the
 * `cosmjs-types` message codecs (the `.proto` sources are not shipped, so there is nothing for
 * proto-loader to load). One table drives the server, the reflection descriptors and the clients
 * tests build, so they cannot disagree on a path or a message type.
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
  QueryTotalSupplyRequest,
  QueryTotalSupplyResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import {
  GetBlockByHeightRequest,
  GetBlockByHeightResponse,
  GetLatestBlockRequest,
  GetLatestBlockResponse,
  GetNodeInfoRequest,
  GetNodeInfoResponse,
  GetSyncingRequest,
  GetSyncingResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
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
  QueryParamsRequest as SlashingParamsRequest,
  QueryParamsResponse as SlashingParamsResponse,
  QuerySigningInfoRequest,
  QuerySigningInfoResponse,
  QuerySigningInfosRequest,
  QuerySigningInfosResponse,
} from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import {
  BroadcastTxRequest,
  BroadcastTxResponse,
  GetTxRequest,
  GetTxResponse,
  GetTxsEventRequest,
  GetTxsEventResponse,
  SimulateRequest,
  SimulateResponse,
} from 'cosmjs-types/cosmos/tx/v1beta1/service';

/** A cosmjs-types message codec; `typeUrl` is `/<package>.<Message>`. */
export interface MessageCodec<T> {
  typeUrl: string;
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}

export interface MethodSpec {
  name: string;
  // The message type differs per method; handlers and clients know theirs.
  request: MessageCodec<any>;
  response: MessageCodec<any>;
}

export interface ServiceSpec {
  /** Fully qualified, e.g. `cosmos.bank.v1beta1.Query`. */
  name: string;
  /** The `.proto` file the SDK declares it in (what reflection reports as its file). */
  file: string;
  methods: MethodSpec[];
}

const m = <Req, Res>(name: string, request: MessageCodec<Req>, response: MessageCodec<Res>): MethodSpec => ({
  name,
  request,
  response,
});

export const SERVICES: ServiceSpec[] = [
  {
    name: 'cosmos.bank.v1beta1.Query',
    file: 'cosmos/bank/v1beta1/query.proto',
    methods: [
      m('Balance', QueryBalanceRequest, QueryBalanceResponse),
      m('AllBalances', QueryAllBalancesRequest, QueryAllBalancesResponse),
      m('TotalSupply', QueryTotalSupplyRequest, QueryTotalSupplyResponse),
    ],
  },
  {
    name: 'cosmos.auth.v1beta1.Query',
    file: 'cosmos/auth/v1beta1/query.proto',
    methods: [m('Account', QueryAccountRequest, QueryAccountResponse)],
  },
  {
    name: 'cosmos.staking.v1beta1.Query',
    file: 'cosmos/staking/v1beta1/query.proto',
    methods: [
      m('Validators', QueryValidatorsRequest, QueryValidatorsResponse),
      m('Validator', QueryValidatorRequest, QueryValidatorResponse),
      m('ValidatorDelegations', QueryValidatorDelegationsRequest, QueryValidatorDelegationsResponse),
      m(
        'ValidatorUnbondingDelegations',
        QueryValidatorUnbondingDelegationsRequest,
        QueryValidatorUnbondingDelegationsResponse,
      ),
      m('Delegation', QueryDelegationRequest, QueryDelegationResponse),
      m('UnbondingDelegation', QueryUnbondingDelegationRequest, QueryUnbondingDelegationResponse),
      m('DelegatorDelegations', QueryDelegatorDelegationsRequest, QueryDelegatorDelegationsResponse),
      m(
        'DelegatorUnbondingDelegations',
        QueryDelegatorUnbondingDelegationsRequest,
        QueryDelegatorUnbondingDelegationsResponse,
      ),
      m('Redelegations', QueryRedelegationsRequest, QueryRedelegationsResponse),
      m('DelegatorValidators', QueryDelegatorValidatorsRequest, QueryDelegatorValidatorsResponse),
      m('DelegatorValidator', QueryDelegatorValidatorRequest, QueryDelegatorValidatorResponse),
      m('Pool', QueryPoolRequest, QueryPoolResponse),
      m('Params', QueryParamsRequest, QueryParamsResponse),
    ],
  },
  {
    name: 'cosmos.slashing.v1beta1.Query',
    file: 'cosmos/slashing/v1beta1/query.proto',
    methods: [
      m('Params', SlashingParamsRequest, SlashingParamsResponse),
      m('SigningInfo', QuerySigningInfoRequest, QuerySigningInfoResponse),
      m('SigningInfos', QuerySigningInfosRequest, QuerySigningInfosResponse),
    ],
  },
  {
    name: 'cosmos.tx.v1beta1.Service',
    file: 'cosmos/tx/v1beta1/service.proto',
    methods: [
      m('Simulate', SimulateRequest, SimulateResponse),
      m('GetTx', GetTxRequest, GetTxResponse),
      m('BroadcastTx', BroadcastTxRequest, BroadcastTxResponse),
      m('GetTxsEvent', GetTxsEventRequest, GetTxsEventResponse),
    ],
  },
  {
    name: 'cosmos.base.tendermint.v1beta1.Service',
    file: 'cosmos/base/tendermint/v1beta1/query.proto',
    methods: [
      m('GetNodeInfo', GetNodeInfoRequest, GetNodeInfoResponse),
      m('GetSyncing', GetSyncingRequest, GetSyncingResponse),
      m('GetLatestBlock', GetLatestBlockRequest, GetLatestBlockResponse),
      m('GetBlockByHeight', GetBlockByHeightRequest, GetBlockByHeightResponse),
    ],
  },
];

export const methodPath = (service: ServiceSpec, method: MethodSpec) => `/${service.name}/${method.name}`;

/** The grpc-js definition of one service: unary methods, protobuf bytes through the codecs. */
export function serviceDefinition(service: ServiceSpec): ServiceDefinition {
  const def: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    def[method.name] = {
      path: methodPath(service, method),
      requestStream: false,
      responseStream: false,
      requestSerialize: (x) => Buffer.from(method.request.encode(x).finish()),
      requestDeserialize: (b) => method.request.decode(b),
      responseSerialize: (x) => Buffer.from(method.response.encode(x).finish()),
      responseDeserialize: (b) => method.response.decode(b),
    };
  }
  return def;
}
