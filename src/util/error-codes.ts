/**
 * Every code a ChainError may carry. A code is a stable name clients and logs can rely on; the RPC
 * layer maps each to a JSON-RPC code in one table (rpc/server/errors.ts), which fails to compile
 * when a code here has no entry there. Grouped by the layer that raises it.
 */

/**
 * Codes that carry another protocol's code after the prefix: a Cosmos SDK ABCI code (`SDK_5`), a gRPC
 * status name (`GRPC_NOT_FOUND`, `REST_NOT_FOUND`). The table maps each family as one.
 */
export type ErrorCodeFamily = 'SDK' | 'GRPC' | 'REST';

/** The codes named one by one. */
export type NamedErrorCode =
  // util
  | 'LOCK_HELD'
  | 'CONFIG_INVALID'
  | 'BAD_ARGUMENT'
  // codec
  | 'CODEC_INVALID'
  // storage/kv
  | 'KV_CLOSED'
  | 'KV_ENGINE_MISSING'
  | 'KV_INVALID_OP'
  // storage/ss
  | 'SS_BACKEND_REFUSED'
  | 'SS_CHANGELOG_CORRUPT'
  | 'SS_CLOSED'
  | 'SS_EVM_ITERATION_DISABLED'
  | 'SS_ROLLBACK_RANGE'
  | 'SS_STARTUP_REFUSED'
  | 'SS_VERSION_NOT_INCREASING'
  | 'SS_VERSION_PRUNED'
  | 'SS_VERSION_TOO_HIGH'
  | 'SS_WRITER_FAILED'
  // storage/sc
  | 'SC_CHANGELOG_CORRUPT'
  | 'SC_IMPORT_INVALID'
  | 'SC_INVALID_STATE'
  | 'SC_ITERATION_UNSUPPORTED'
  | 'SC_PROOF_UNSUPPORTED'
  | 'SC_ROLLBACK_OUT_OF_RANGE'
  | 'SC_SNAPSHOT_CORRUPT'
  | 'STATE_SYNC_SNAPSHOT_INVALID'
  | 'STATE_SYNC_RESTORE_FAILED'
  | 'STATE_SYNC_SNAPSHOT_EXISTS'
  | 'STATE_SYNC_SNAPSHOT_NOT_FOUND'
  | 'SC_UNKNOWN_STORE'
  | 'SC_VERSION_UNAVAILABLE'
  // storage/blocks
  | 'BLOCKSTORE_CLOSED'
  | 'BLOCKSTORE_CORRUPT'
  | 'BLOCKSTORE_HEIGHT'
  | 'BLOCKSTORE_INVALID_DATA'
  | 'LOG_QUERY_INVALID'
  // app
  | 'GENESIS_INVALID'
  | 'INSUFFICIENT_FUNDS'
  | 'NEGATIVE_BALANCE'
  // execution
  | 'ETH_TX_INVALID'
  | 'UNSUPPORTED'
  | 'SIMULATION_BAD_OVERRIDE'
  | 'SIMULATION_FAILED'
  | 'SIMULATION_INTERNAL'
  | 'EXECUTION_INTERNAL'
  | 'SIMULATION_TIMEOUT'
  | 'TRACE_INVALID_CONFIG'
  | 'TRACE_REUSED'
  | 'TRACE_TIMEOUT'
  | 'TRACE_UNKNOWN_TRACER'
  | 'TRACE_TOO_LARGE'
  | 'SIMULATION_INVALID_CALL'
  // mempool
  | 'TX_REJECTED'
  // fork (a dev chain forked from a remote)
  | 'FORK_REMOTE_FAILED'
  // chain
  | 'APP_HASH_MISMATCH'
  | 'BAD_HEIGHT'
  | 'REPLAY_DIVERGED'
  | 'ROLLBACK_RANGE'
  | 'STORES_INCONSISTENT'
  | 'TRACE_BLOCK_MISSING'
  | 'TRACE_GENESIS'
  | 'TRACE_REPLAY_DIVERGED'
  | 'TRACE_STATE_PRUNED'
  | 'TRACE_TX_MISSING'
  | 'TRACE_TX_NOT_EXECUTED'
  // cometbft (network mode)
  | 'COMETBFT_MISSING'
  | 'ENGINE_UNAVAILABLE'
  | 'GENESIS_MISMATCH'
  | 'BAD_BLOCK'
  | 'ROLLBACK_FAILED'
  // producer
  | 'DOUBLE_SIGN'
  | 'SIGNER_STATE'
  // rpc (transport and JSON-RPC 2.0)
  | 'RPC_PARSE'
  | 'RPC_INVALID_REQUEST'
  | 'RPC_METHOD_NOT_FOUND'
  | 'RPC_INVALID_PARAMS'
  | 'RPC_INVALID_PARAM'
  | 'RPC_LIMIT_EXCEEDED'
  | 'RPC_LISTEN_FAILED'
  | 'RPC_BODY_TOO_LARGE'
  | 'RPC_REQUEST_FAILED'
  | 'QUERY_HEIGHT'
  | 'TX_QUERY'
  // rpc (consensus)
  | 'RPC_LAG_TOO_HIGH'
  | 'RPC_NODE_HALTED'
  // rpc (eth_, debug_)
  | 'EXECUTION_FAILED'
  | 'EXECUTION_REVERTED'
  // eth_simulateV1 (geth's -380xx codes)
  | 'SIMULATE_NONCE_TOO_LOW'
  | 'SIMULATE_NONCE_TOO_HIGH'
  | 'SIMULATE_NONCE_MAX'
  | 'SIMULATE_BASE_FEE_TOO_LOW'
  | 'SIMULATE_INTRINSIC_GAS'
  | 'SIMULATE_INSUFFICIENT_FUNDS'
  | 'SIMULATE_BLOCK_GAS_LIMIT'
  | 'SIMULATE_BLOCK_NUMBER_ORDER'
  | 'SIMULATE_TIMESTAMP_ORDER'
  | 'SIMULATE_CLIENT_LIMIT'
  | 'SIMULATE_INIT_CODE_SIZE'
  | 'SIMULATE_INVALID_PARAMS'
  | 'RPC_BEYOND_HEAD'
  | 'RPC_BLOCK_MISSING'
  | 'RPC_FILTER_LAGGED'
  | 'RPC_FILTER_NOT_FOUND'
  | 'RPC_HEADER_NOT_FOUND'
  | 'RPC_HEIGHT_PRUNED'
  | 'RPC_INVALID_BLOCK_RANGE'
  | 'RPC_INVALID_PERCENTILE'
  | 'RPC_SUBSCRIPTION_NOT_FOUND'
  | 'RPC_TOO_MANY_FILTERS'
  | 'RPC_UNKNOWN_BLOCK'
  | 'TRACE_BLOCK_NOT_FOUND'
  | 'TRACE_BUSY'
  | 'TRACE_LOOKBACK'
  | 'TRACE_TX_NOT_FOUND'
  // rpc (dev chain)
  | 'DEV_UNKNOWN_ACCOUNT'
  | 'BAD_DEV_RECORD'
  // rpc (legacy chain_)
  | 'LEGACY_BLOCK_NOT_FOUND'
  | 'LEGACY_NOT_FOUND'
  | 'LEGACY_TRACER_UNAVAILABLE'
  | 'LEGACY_TX_FAILED_BEFORE_EXECUTION'
  // node and cli
  | 'ALREADY_INITIALIZED'
  | 'GENESIS_MISSING'
  | 'NODE_KEY'
  | 'LISTEN_FAILED'
  | 'NOT_STARTED'
  | 'PROOF_HEIGHT_UNAVAILABLE'
  | 'SS_DISABLED';

export type ErrorCode = NamedErrorCode | `${ErrorCodeFamily}_${string}`;
