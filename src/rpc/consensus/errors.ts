/**
 * Errors of the consensus RPC, each with its JSON-RPC code and HTTP status in one place. The
 * messages follow CometBFT ("Invalid params", "Internal error", …) with the reason in `data`, so
 * clients written against CometBFT read them the same way.
 */
import { ChainError, type ErrorCode } from '../../util/errors.ts';

export class ConsensusRpcError extends ChainError {
  readonly rpcCode: number;
  readonly httpStatus: number;
  readonly data: string;
  constructor(code: ErrorCode, rpcCode: number, message: string, data: string, httpStatus: number) {
    super(code, message);
    this.rpcCode = rpcCode;
    this.data = data;
    this.httpStatus = httpStatus;
  }
}

/** Malformed or missing parameters: -32602, HTTP 400 on GET. */
export class InvalidParamsError extends ConsensusRpcError {
  constructor(reason: string) {
    super('RPC_INVALID_PARAMS', -32602, 'Invalid params', reason, 400);
  }
}

export class MethodNotFoundError extends ConsensusRpcError {
  constructor(method: string) {
    super('RPC_METHOD_NOT_FOUND', -32601, 'Method not found', `unknown route ${JSON.stringify(method)}`, 404);
  }
}

export class ParseError extends ConsensusRpcError {
  constructor(reason: string) {
    super('RPC_PARSE', -32700, 'Parse error', reason, 400);
  }
}

export class InvalidRequestError extends ConsensusRpcError {
  constructor(reason: string) {
    super('RPC_INVALID_REQUEST', -32600, 'Invalid Request', reason, 400);
  }
}

/**
 * A well-formed request the node cannot answer (height out of range, tx not found, timeout).
 * CometBFT reports these as -32603 "Internal error" with the reason in data; so do we.
 */
export class RequestFailedError extends ConsensusRpcError {
  constructor(reason: string) {
    super('RPC_REQUEST_FAILED', -32603, 'Internal error', reason, 500);
  }
}

/**
 * `/lag_status` when the node cannot make progress: HTTP 503, so a load balancer or readiness probe
 * takes it out of rotation, with the engine's reason and the heights in `data`.
 */
export class NodeHaltedError extends ConsensusRpcError {
  constructor(detail: string) {
    super('RPC_NODE_HALTED', -32603, 'Node is halted', detail, 503);
  }
}

/**
 * `/lag_status` while the node restores a state-sync snapshot: it has no chain yet, so HTTP 503 as for
 * a halted node, with what the restore waits for in `data`.
 */
export class StateSyncingError extends ConsensusRpcError {
  constructor(detail: string) {
    super('RPC_STATE_SYNCING', -32603, 'Node is state syncing', detail, 503);
  }
}

/**
 * `/lag_status` while the node says it is catching up but no peer's height shows by how much (its
 * block sync exposes none; the heights it knew are from before a stall): a lag of 0 would read as
 * current, so HTTP 503 with what it knows.
 */
export class CatchingUpError extends ConsensusRpcError {
  constructor(detail: string) {
    super('RPC_CATCHING_UP', -32603, 'Node is catching up', detail, 503);
  }
}

/** `/lag_status` when the lag exceeds `[rpc] lag-threshold`: HTTP 417 so load balancers can act on it. */
export class LagTooHighError extends ConsensusRpcError {
  constructor(lag: number, threshold: number) {
    super(
      'RPC_LAG_TOO_HIGH',
      -32604,
      'Lag is too high',
      `lag ${lag} exceeds the threshold ${threshold}`,
      417,
    );
  }
}
