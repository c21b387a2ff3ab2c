/**
 * The `.proto` files reflection describes, as data: for each file its package and the messages and
 * enums the served methods use, with field names, numbers and types as the Cosmos SDK, CometBFT and
 * google.protobuf declare them. It covers what the served methods exchange except Tx, the blocks and
 * node info (GetTx's `tx`, GetTxsEvent's `txs`, BroadcastTx's/GetTx's TxResponse `logs`, the tendermint Block and
 * DefaultNodeInfo), which are described without fields; a reflection client skips those bytes.
 *
 * A field type is a scalar name, `.pkg.Message`, or `enum:.pkg.Enum`; `[]` suffix = repeated.
 */
export type FieldSpec = [name: string, number: number, type: string];

export interface ProtoFile {
  name: string;
  package: string;
  messages: Record<string, FieldSpec[]>;
  enums?: Record<string, string[]>;
}

const PAGE_REQ: FieldSpec = ['pagination', 2, '.cosmos.base.query.v1beta1.PageRequest'];
const PAGE_RES: FieldSpec = ['pagination', 2, '.cosmos.base.query.v1beta1.PageResponse'];
const TX_RESPONSE = '.cosmos.base.abci.v1beta1.TxResponse';

export const PROTO_FILES: ProtoFile[] = [
  {
    name: 'google/protobuf/any.proto',
    package: 'google.protobuf',
    messages: {
      Any: [
        ['type_url', 1, 'string'],
        ['value', 2, 'bytes'],
      ],
    },
  },
  {
    name: 'google/protobuf/timestamp.proto',
    package: 'google.protobuf',
    messages: {
      Timestamp: [
        ['seconds', 1, 'int64'],
        ['nanos', 2, 'int32'],
      ],
    },
  },
  {
    name: 'cosmos/base/v1beta1/coin.proto',
    package: 'cosmos.base.v1beta1',
    messages: {
      Coin: [
        ['denom', 1, 'string'],
        ['amount', 2, 'string'],
      ],
    },
  },
  {
    name: 'cosmos/base/query/v1beta1/pagination.proto',
    package: 'cosmos.base.query.v1beta1',
    messages: {
      PageRequest: [
        ['key', 1, 'bytes'],
        ['offset', 2, 'uint64'],
        ['limit', 3, 'uint64'],
        ['count_total', 4, 'bool'],
        ['reverse', 5, 'bool'],
      ],
      PageResponse: [
        ['next_key', 1, 'bytes'],
        ['total', 2, 'uint64'],
      ],
    },
  },
  {
    name: 'cosmos/staking/v1beta1/staking.proto',
    package: 'cosmos.staking.v1beta1',
    enums: {
      BondStatus: [
        'BOND_STATUS_UNSPECIFIED',
        'BOND_STATUS_UNBONDED',
        'BOND_STATUS_UNBONDING',
        'BOND_STATUS_BONDED',
      ],
    },
    messages: {
      Validator: [
        ['operator_address', 1, 'string'],
        ['consensus_pubkey', 2, '.google.protobuf.Any'],
        ['jailed', 3, 'bool'],
        ['status', 4, 'enum:.cosmos.staking.v1beta1.BondStatus'],
        ['tokens', 5, 'string'],
        ['delegator_shares', 6, 'string'],
        ['description', 7, '.cosmos.staking.v1beta1.Description'],
        ['unbonding_height', 8, 'int64'],
        ['unbonding_time', 9, '.google.protobuf.Timestamp'],
        ['commission', 10, '.cosmos.staking.v1beta1.Commission'],
        ['min_self_delegation', 11, 'string'],
        ['unbonding_on_hold_ref_count', 12, 'int64'],
        ['unbonding_ids', 13, 'uint64[]'],
      ],
      Description: [
        ['moniker', 1, 'string'],
        ['identity', 2, 'string'],
        ['website', 3, 'string'],
        ['security_contact', 4, 'string'],
        ['details', 5, 'string'],
      ],
      Commission: [
        ['commission_rates', 1, '.cosmos.staking.v1beta1.CommissionRates'],
        ['update_time', 2, '.google.protobuf.Timestamp'],
      ],
      CommissionRates: [
        ['rate', 1, 'string'],
        ['max_rate', 2, 'string'],
        ['max_change_rate', 3, 'string'],
      ],
    },
  },
  {
    name: 'tendermint/abci/types.proto',
    package: 'tendermint.abci',
    messages: {
      Event: [
        ['type', 1, 'string'],
        ['attributes', 2, '.tendermint.abci.EventAttribute[]'],
      ],
      EventAttribute: [
        ['key', 1, 'string'],
        ['value', 2, 'string'],
        ['index', 3, 'bool'],
      ],
    },
  },
  {
    name: 'cosmos/base/abci/v1beta1/abci.proto',
    package: 'cosmos.base.abci.v1beta1',
    messages: {
      GasInfo: [
        ['gas_wanted', 1, 'uint64'],
        ['gas_used', 2, 'uint64'],
      ],
      Result: [
        ['data', 1, 'bytes'],
        ['log', 2, 'string'],
        ['events', 3, '.tendermint.abci.Event[]'],
        ['msg_responses', 4, '.google.protobuf.Any[]'],
      ],
      TxResponse: [
        ['height', 1, 'int64'],
        ['txhash', 2, 'string'],
        ['codespace', 3, 'string'],
        ['code', 4, 'uint32'],
        ['data', 5, 'string'],
        ['raw_log', 6, 'string'],
        ['info', 8, 'string'],
        ['gas_wanted', 9, 'int64'],
        ['gas_used', 10, 'int64'],
        ['tx', 11, '.google.protobuf.Any'],
        ['timestamp', 12, 'string'],
        ['events', 13, '.tendermint.abci.Event[]'],
      ],
    },
  },
  {
    name: 'cosmos/bank/v1beta1/query.proto',
    package: 'cosmos.bank.v1beta1',
    messages: {
      QueryBalanceRequest: [
        ['address', 1, 'string'],
        ['denom', 2, 'string'],
      ],
      QueryBalanceResponse: [['balance', 1, '.cosmos.base.v1beta1.Coin']],
      QueryAllBalancesRequest: [['address', 1, 'string'], PAGE_REQ, ['resolve_denom', 3, 'bool']],
      QueryAllBalancesResponse: [['balances', 1, '.cosmos.base.v1beta1.Coin[]'], PAGE_RES],
      QueryTotalSupplyRequest: [['pagination', 1, '.cosmos.base.query.v1beta1.PageRequest']],
      QueryTotalSupplyResponse: [['supply', 1, '.cosmos.base.v1beta1.Coin[]'], PAGE_RES],
    },
  },
  {
    name: 'cosmos/auth/v1beta1/query.proto',
    package: 'cosmos.auth.v1beta1',
    messages: {
      QueryAccountRequest: [['address', 1, 'string']],
      QueryAccountResponse: [['account', 1, '.google.protobuf.Any']],
    },
  },
  {
    name: 'cosmos/staking/v1beta1/query.proto',
    package: 'cosmos.staking.v1beta1',
    messages: {
      QueryValidatorsRequest: [['status', 1, 'string'], PAGE_REQ],
      QueryValidatorsResponse: [['validators', 1, '.cosmos.staking.v1beta1.Validator[]'], PAGE_RES],
      QueryValidatorRequest: [['validator_addr', 1, 'string']],
      QueryValidatorResponse: [['validator', 1, '.cosmos.staking.v1beta1.Validator']],
    },
  },
  {
    name: 'cosmos/tx/v1beta1/service.proto',
    package: 'cosmos.tx.v1beta1',
    enums: {
      BroadcastMode: [
        'BROADCAST_MODE_UNSPECIFIED',
        'BROADCAST_MODE_BLOCK',
        'BROADCAST_MODE_SYNC',
        'BROADCAST_MODE_ASYNC',
      ],
      OrderBy: ['ORDER_BY_UNSPECIFIED', 'ORDER_BY_ASC', 'ORDER_BY_DESC'],
    },
    messages: {
      SimulateRequest: [['tx_bytes', 2, 'bytes']],
      SimulateResponse: [
        ['gas_info', 1, '.cosmos.base.abci.v1beta1.GasInfo'],
        ['result', 2, '.cosmos.base.abci.v1beta1.Result'],
      ],
      GetTxRequest: [['hash', 1, 'string']],
      GetTxResponse: [['tx_response', 2, TX_RESPONSE]],
      BroadcastTxRequest: [
        ['tx_bytes', 1, 'bytes'],
        ['mode', 2, 'enum:.cosmos.tx.v1beta1.BroadcastMode'],
      ],
      BroadcastTxResponse: [['tx_response', 1, TX_RESPONSE]],
      GetTxsEventRequest: [
        ['events', 1, 'string[]'],
        PAGE_REQ,
        ['order_by', 3, 'enum:.cosmos.tx.v1beta1.OrderBy'],
        ['page', 4, 'uint64'],
        ['limit', 5, 'uint64'],
        ['query', 6, 'string'],
      ],
      GetTxsEventResponse: [
        ['tx_responses', 2, `${TX_RESPONSE}[]`],
        ['pagination', 3, '.cosmos.base.query.v1beta1.PageResponse'],
        ['total', 4, 'uint64'],
      ],
    },
  },
  {
    name: 'cosmos/base/tendermint/v1beta1/query.proto',
    package: 'cosmos.base.tendermint.v1beta1',
    messages: {
      GetNodeInfoRequest: [],
      GetNodeInfoResponse: [],
      GetSyncingRequest: [],
      GetSyncingResponse: [['syncing', 1, 'bool']],
      GetLatestBlockRequest: [],
      GetLatestBlockResponse: [],
      GetBlockByHeightRequest: [['height', 1, 'int64']],
      GetBlockByHeightResponse: [],
    },
  },
];
