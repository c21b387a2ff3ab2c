/**
 * JSON-RPC errors. Everything the node raises on purpose is a ChainError with a stable `code`; the
 * one table below turns those codes into JSON-RPC codes, and a code without an entry does not
 * compile. Anything that is not a ChainError is a bug (-32603, with the detail kept out of the
 * answer and logged by the server).
 */
import type { ErrorCode, ErrorCodeFamily, NamedErrorCode } from '../../util/error-codes.ts';
import { ChainError } from '../../util/errors.ts';

export const SERVER_ERROR = -32000;
export const INTERNAL_ERROR = -32603;

/**
 * The JSON-RPC code of every ChainError code. A plain failure is SERVER_ERROR with the error's own
 * message; EXECUTION_REVERTED is 3 with the revert bytes as data, as geth answers.
 */
export const JSONRPC_CODES = Object.freeze({
  // util
  LOCK_HELD: SERVER_ERROR,
  OUT_OF_DISK: SERVER_ERROR,
  CONFIG_INVALID: SERVER_ERROR,
  BAD_ARGUMENT: SERVER_ERROR,
  // codec
  CODEC_INVALID: SERVER_ERROR,
  // storage/kv
  KV_CLOSED: SERVER_ERROR,
  KV_ENGINE_MISSING: SERVER_ERROR,
  KV_INVALID_OP: SERVER_ERROR,
  // storage/ss
  SS_BACKEND_REFUSED: SERVER_ERROR,
  SS_CHANGELOG_CORRUPT: SERVER_ERROR,
  SS_CLOSED: SERVER_ERROR,
  SS_EVM_ITERATION_DISABLED: SERVER_ERROR,
  SS_ROLLBACK_RANGE: SERVER_ERROR,
  SS_STARTUP_REFUSED: SERVER_ERROR,
  SS_VERSION_NOT_INCREASING: SERVER_ERROR,
  SS_VERSION_PRUNED: SERVER_ERROR,
  SS_VERSION_TOO_HIGH: SERVER_ERROR,
  SS_WRITER_FAILED: SERVER_ERROR,
  // storage/sc
  SC_CHANGELOG_CORRUPT: SERVER_ERROR,
  SC_IMPORT_INVALID: SERVER_ERROR,
  SC_INVALID_STATE: SERVER_ERROR,
  SC_ITERATION_UNSUPPORTED: SERVER_ERROR,
  SC_PROOF_UNSUPPORTED: SERVER_ERROR,
  SC_ROLLBACK_OUT_OF_RANGE: SERVER_ERROR,
  SC_SNAPSHOT_CORRUPT: SERVER_ERROR,
  STATE_SYNC_SNAPSHOT_INVALID: SERVER_ERROR,
  STATE_SYNC_RESTORE_FAILED: SERVER_ERROR,
  STATE_SYNC_SNAPSHOT_EXISTS: SERVER_ERROR,
  STATE_SYNC_SNAPSHOT_NOT_FOUND: SERVER_ERROR,
  SC_UNKNOWN_STORE: SERVER_ERROR,
  SC_VERSION_UNAVAILABLE: SERVER_ERROR,
  // storage/blocks
  BLOCKSTORE_CLOSED: SERVER_ERROR,
  BLOCKSTORE_CORRUPT: SERVER_ERROR,
  BLOCKSTORE_HEIGHT: SERVER_ERROR,
  BLOCKSTORE_INVALID_DATA: SERVER_ERROR,
  LOG_QUERY_INVALID: SERVER_ERROR,
  // app
  GENESIS_INVALID: SERVER_ERROR,
  INSUFFICIENT_FUNDS: SERVER_ERROR,
  NEGATIVE_BALANCE: SERVER_ERROR,
  // execution
  ETH_TX_INVALID: SERVER_ERROR,
  UNSUPPORTED: SERVER_ERROR,
  SIMULATION_BAD_OVERRIDE: SERVER_ERROR,
  SIMULATION_FAILED: SERVER_ERROR,
  SIMULATION_INTERNAL: SERVER_ERROR,
  EXECUTION_INTERNAL: SERVER_ERROR,
  SIMULATION_TIMEOUT: SERVER_ERROR,
  TRACE_INVALID_CONFIG: SERVER_ERROR,
  TRACE_REUSED: SERVER_ERROR,
  TRACE_TIMEOUT: SERVER_ERROR,
  TRACE_UNKNOWN_TRACER: SERVER_ERROR,
  TRACE_TOO_LARGE: SERVER_ERROR,
  SIMULATION_INVALID_CALL: SERVER_ERROR,
  // mempool
  TX_REJECTED: SERVER_ERROR,
  // cometbft (network mode)
  COMETBFT_MISSING: SERVER_ERROR,
  ENGINE_UNAVAILABLE: SERVER_ERROR,
  FORK_REMOTE_FAILED: SERVER_ERROR,
  GENESIS_MISMATCH: SERVER_ERROR,
  BAD_BLOCK: SERVER_ERROR,
  ROLLBACK_FAILED: SERVER_ERROR,
  // chain
  APP_HASH_MISMATCH: SERVER_ERROR,
  BAD_HEIGHT: SERVER_ERROR,
  REPLAY_DIVERGED: SERVER_ERROR,
  ROLLBACK_RANGE: SERVER_ERROR,
  STORES_INCONSISTENT: SERVER_ERROR,
  CHAIN_HALTED: SERVER_ERROR,
  TRACE_BLOCK_MISSING: SERVER_ERROR,
  TRACE_GENESIS: SERVER_ERROR,
  TRACE_REPLAY_DIVERGED: SERVER_ERROR,
  TRACE_STATE_PRUNED: SERVER_ERROR,
  TRACE_TX_MISSING: SERVER_ERROR,
  TRACE_TX_NOT_EXECUTED: SERVER_ERROR,
  // producer
  DOUBLE_SIGN: SERVER_ERROR,
  SIGNER_STATE: SERVER_ERROR,
  // rpc (transport and JSON-RPC 2.0)
  RPC_PARSE: -32700,
  RPC_INVALID_REQUEST: -32600,
  RPC_METHOD_NOT_FOUND: -32601,
  RPC_INVALID_PARAMS: -32602,
  RPC_INVALID_PARAM: -32602,
  RPC_LIMIT_EXCEEDED: -32005,
  RPC_LISTEN_FAILED: SERVER_ERROR,
  RPC_BODY_TOO_LARGE: SERVER_ERROR,
  RPC_REQUEST_FAILED: SERVER_ERROR,
  QUERY_HEIGHT: SERVER_ERROR,
  TX_QUERY: -32602,
  // rpc (consensus)
  RPC_LAG_TOO_HIGH: SERVER_ERROR,
  RPC_NODE_HALTED: SERVER_ERROR,
  RPC_STATE_SYNCING: SERVER_ERROR,
  RPC_CATCHING_UP: SERVER_ERROR,
  // rpc (eth_, debug_)
  EXECUTION_FAILED: SERVER_ERROR,
  EXECUTION_REVERTED: 3,
  SIMULATE_NONCE_TOO_LOW: -38010,
  SIMULATE_NONCE_TOO_HIGH: -38011,
  // geth has no code of its own for it: its txValidationError's default
  SIMULATE_NONCE_MAX: -32603,
  SIMULATE_BASE_FEE_TOO_LOW: -38012,
  SIMULATE_INTRINSIC_GAS: -38013,
  SIMULATE_INSUFFICIENT_FUNDS: -38014,
  SIMULATE_BLOCK_GAS_LIMIT: -38015,
  SIMULATE_BLOCK_NUMBER_ORDER: -38020,
  SIMULATE_TIMESTAMP_ORDER: -38021,
  SIMULATE_CLIENT_LIMIT: -38026,
  SIMULATE_INIT_CODE_SIZE: -38025,
  SIMULATE_INVALID_PARAMS: -32602,
  RPC_BEYOND_HEAD: SERVER_ERROR,
  RPC_BLOCK_MISSING: SERVER_ERROR,
  RPC_FILTER_LAGGED: SERVER_ERROR,
  RPC_FILTER_NOT_FOUND: SERVER_ERROR,
  RPC_HEADER_NOT_FOUND: SERVER_ERROR,
  RPC_HEIGHT_PRUNED: SERVER_ERROR,
  RPC_ADDRESS_INDEX_INCOMPLETE: SERVER_ERROR,
  RPC_INVALID_BLOCK_RANGE: SERVER_ERROR,
  RPC_INVALID_PERCENTILE: SERVER_ERROR,
  RPC_SUBSCRIPTION_NOT_FOUND: SERVER_ERROR,
  RPC_TOO_MANY_FILTERS: SERVER_ERROR,
  RPC_UNKNOWN_BLOCK: SERVER_ERROR,
  TRACE_BLOCK_NOT_FOUND: SERVER_ERROR,
  TRACE_BUSY: SERVER_ERROR,
  TRACE_LOOKBACK: SERVER_ERROR,
  TRACE_RANGE_TOO_WIDE: SERVER_ERROR,
  TRACE_TX_NOT_FOUND: SERVER_ERROR,
  // EIP-7966's code for eth_sendRawTransactionSync's timeout (geth answers the same)
  RPC_TX_SYNC_TIMEOUT: 4,
  RPC_STOPPING: SERVER_ERROR,
  // rpc (dev chain)
  DEV_UNKNOWN_ACCOUNT: SERVER_ERROR,
  BAD_DEV_RECORD: SERVER_ERROR,
  // rpc (legacy chain_)
  LEGACY_BLOCK_NOT_FOUND: SERVER_ERROR,
  LEGACY_NOT_FOUND: SERVER_ERROR,
  LEGACY_TRACER_UNAVAILABLE: SERVER_ERROR,
  LEGACY_TX_FAILED_BEFORE_EXECUTION: SERVER_ERROR,
  // node and cli
  ALREADY_INITIALIZED: SERVER_ERROR,
  GENESIS_MISSING: SERVER_ERROR,
  NODE_KEY: SERVER_ERROR,
  LISTEN_FAILED: SERVER_ERROR,
  NOT_STARTED: SERVER_ERROR,
  PROOF_HEIGHT_UNAVAILABLE: SERVER_ERROR,
  SS_DISABLED: SERVER_ERROR,
} satisfies Record<NamedErrorCode, number>);

/** The JSON-RPC code of every code of a family (`SDK_5`, `GRPC_NOT_FOUND`). */
export const JSONRPC_FAMILY_CODES = Object.freeze({
  SDK: SERVER_ERROR,
  GRPC: SERVER_ERROR,
  REST: SERVER_ERROR,
} satisfies Record<ErrorCodeFamily, number>);

/** The JSON-RPC code of a ChainError code. */
export function jsonRpcCodeOf(code: ErrorCode): number {
  const named = (JSONRPC_CODES as Record<string, number>)[code];
  if (named !== undefined) return named;
  const family = (JSONRPC_FAMILY_CODES as Record<string, number>)[code.slice(0, code.indexOf('_'))];
  // a code that reached here around the type (plain JS, a cast) is still a plain failure
  return family ?? SERVER_ERROR;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A ChainError that carries a JSON-RPC `data` member. */
export class RpcError extends ChainError {
  readonly data: unknown;
  constructor(code: ErrorCode, message: string, data?: unknown) {
    super(code, message);
    this.data = data;
  }
}

/**
 * -32600 with the JSON-RPC 2.0 message, exactly `Invalid Request` (as the reference node answers; clients
 * match on it); what was wrong with the request goes in `data`.
 */
export class InvalidRequestError extends RpcError {
  constructor(reason: string) {
    super('RPC_INVALID_REQUEST', 'Invalid Request', reason);
  }
}

export class MethodNotFoundError extends RpcError {
  constructor(message: string) {
    super('RPC_METHOD_NOT_FOUND', message);
  }
}

export class InvalidParamsError extends RpcError {
  constructor(message: string) {
    super('RPC_INVALID_PARAMS', message);
  }
}

/** A configured limit (log range, log count, ...) was exceeded; the message names the limit. */
export class LimitExceededError extends RpcError {
  constructor(message: string) {
    super('RPC_LIMIT_EXCEEDED', message);
  }
}

/** Maps any thrown value to the JSON-RPC error object; `internal` is called for unexpected errors. */
export function toJsonRpcError(err: unknown, internal: (err: unknown) => void): JsonRpcError {
  if (err instanceof ChainError) {
    const code = jsonRpcCodeOf(err.code);
    const out: JsonRpcError = { code, message: err.message };
    if (err instanceof RpcError && err.data !== undefined) out.data = err.data;
    return out;
  }
  internal(err);
  return { code: INTERNAL_ERROR, message: 'internal error' };
}
