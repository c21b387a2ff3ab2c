/**
 * The tracer hooks, shaped after geth's tracing.Hooks (core/tracing/hooks.go) so each tracer reads
 * like its geth original. `bridge.ts` produces them from ethereumjs's EVM events.
 *
 * Depths follow geth: `onEnter`/`onExit` number the transaction's own frame 0; opcode steps carry the
 * interpreter depth, which is 1 in that frame (what the struct logger prints).
 */
import type { ChainError } from '../../util/errors.ts';

export type CallType =
  'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

/** Reads of the state the traced transaction runs on, at the moment of the call. */
export interface TraceState {
  balance(address: Uint8Array): Promise<bigint>;
  nonce(address: Uint8Array): Promise<bigint>;
  code(address: Uint8Array): Promise<Uint8Array>;
  /** 32-byte value of a 32-byte slot */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

export interface TxStart {
  from: Uint8Array;
  /** undefined: a contract creation */
  to?: Uint8Array;
  /** the address a creation deploys to (from the sender's nonce before the transaction) */
  created?: Uint8Array;
  value: bigint;
  gasLimit: bigint;
  input: Uint8Array;
  coinbase: Uint8Array;
  /** EIP-7702 authorities whose signatures recover (before they are applied) */
  authorities: Uint8Array[];
}

export interface TxEnd {
  /** the receipt's gas used (after refunds) */
  gasUsed: bigint;
}

export interface Enter {
  depth: number;
  type: CallType;
  from: Uint8Array;
  to: Uint8Array;
  input: Uint8Array;
  gas: bigint;
  /** undefined where geth passes nil (STATICCALL) */
  value: bigint | undefined;
}

export interface Exit {
  depth: number;
  output: Uint8Array;
  gasUsed: bigint;
  /** geth's error text; undefined on success */
  error?: string;
  reverted: boolean;
}

export interface OpStep {
  pc: number;
  op: number;
  /** geth's OpCode.String() */
  opName: string;
  /** gas left before the opcode */
  gas: bigint;
  /** what the opcode costs, including gas handed to a callee (as geth reports it) */
  cost: bigint;
  /** interpreter depth: 1 in the transaction's own frame */
  depth: number;
  /** bottom first, top last */
  stack: bigint[];
  /** memory before the opcode expands it */
  memory: Uint8Array;
  /** the return data of the frame's last call */
  returnData: Uint8Array;
  refund: bigint;
  /** the account whose storage the code runs on */
  address: Uint8Array;
  state: TraceState;
}

export interface TraceLog {
  /** onEnter depth of the frame that logs */
  depth: number;
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface TracerHooks {
  onTxStart?(tx: TxStart, state: TraceState): Promise<void> | void;
  onTxEnd?(end: TxEnd, state: TraceState): Promise<void> | void;
  /** awaited: a tracer may read state here */
  onEnter?(e: Enter): Promise<void> | void;
  onExit?(e: Exit): void;
  /** awaited: a tracer may read state here */
  onOpcode?(s: OpStep): Promise<void> | void;
  /** the last opcode reported failed before it ran (geth logs such a step with the error) */
  onOpcodeFault?(error: string): void;
  onLog?(log: TraceLog): void;
}

/** Any tracer's error that should reach the caller as is (timeout, abort). */
export type TraceAbort = ChainError | Error;
