/**
 * JSON-RPC errors. Everything the node raises on purpose is a ChainError with a stable `code`; the
 * one table below (DESIGN §3, §7) turns those codes into JSON-RPC codes. A ChainError whose code is
 * not listed is a plain failure (-32000) with its own message; anything else is a bug (-32603, with
 * the detail kept out of the answer and logged by the server).
 */
import { ChainError } from '../../util/errors.ts';

export const JSONRPC_CODES: Readonly<Record<string, number>> = Object.freeze({
  RPC_PARSE_ERROR: -32700,
  RPC_INVALID_REQUEST: -32600,
  RPC_METHOD_NOT_FOUND: -32601,
  RPC_INVALID_PARAMS: -32602,
  RPC_INVALID_PARAM: -32602,
  RPC_LIMIT_EXCEEDED: -32005,
  /** eth_call / eth_estimateGas reverts (a later slice), with the revert bytes as data */
  EXECUTION_REVERTED: 3,
});

export const SERVER_ERROR = -32000;
export const INTERNAL_ERROR = -32603;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A ChainError that carries a JSON-RPC `data` member. */
export class RpcError extends ChainError {
  readonly data: unknown;
  constructor(code: string, message: string, data?: unknown) {
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
    const code = JSONRPC_CODES[err.code] ?? SERVER_ERROR;
    const out: JsonRpcError = { code, message: err.message };
    if (err instanceof RpcError && err.data !== undefined) out.data = err.data;
    return out;
  }
  internal(err);
  return { code: INTERNAL_ERROR, message: 'internal error' };
}
