/**
 * Simulation: eth_call, eth_estimateGas, eth_createAccessList. Nothing is broadcast or
 * persisted. The block parameter is optional (latest); `pending` runs on the pending state (the latest
 * state with the mempool's executable txs applied), in the pending block.
 *
 * Errors, as geth answers them:
 *   a REVERT → 3 "execution reverted[: reason]" with the revert bytes as `data` (Error(string) and
 *     Panic(uint256) decoded, panics in geth's words);
 *   another EVM halt (out of gas, invalid opcode, ...) and messages that cannot run at all
 *     (insufficient funds, fee cap below base fee, timeout) → -32000 with the reason.
 */
import type { BlockRef } from '../codecs/block-ref.ts';
import type { AccessListItem } from '../../execution/simulation/simulate.ts';
import { type CallObject, parseCallObject } from '../codecs/call.ts';
import { address, data, hash32, quantity } from '../codecs/hex.ts';
import {
  type AccountOverride,
  type BlockOverrides,
  parseBlockOverrides,
  parseStateOverrides,
} from '../codecs/overrides.ts';
import { optional, p, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { LimitExceededError, RpcError } from '../server/errors.ts';
import { ChainError } from '../../util/errors.ts';
import type { StatePoint } from './backend.ts';
import type { Resolver } from './resolve.ts';

export type CallResult =
  | { status: 'success'; returnData: Uint8Array }
  | { status: 'revert'; returnData: Uint8Array }
  | { status: 'failure'; error: string };

export type EstimateResult =
  | { status: 'success'; gas: bigint }
  | { status: 'revert'; returnData: Uint8Array }
  | { status: 'failure'; error: string };

export interface AccessListResult {
  accessList: AccessListItem[];
  gasUsed: bigint;
  error?: string;
}

/** Simulated execution on the state after block `height`, or the pending state (node/ implements it over execution/). */
export interface SimulationBackend {
  call(
    height: StatePoint,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ): Promise<CallResult>;
  estimateGas(
    height: StatePoint,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ): Promise<EstimateResult>;
  createAccessList(height: StatePoint, call: CallObject): Promise<AccessListResult>;
}

/** Code 3 with the revert bytes: what clients (ethers CALL_EXCEPTION, viem) decode. */
export class ExecutionRevertedError extends RpcError {
  constructor(revert: Uint8Array) {
    const reason = unpackRevert(revert);
    super(
      'EXECUTION_REVERTED',
      reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
      data(revert),
    );
  }
}

/** An EVM halt other than REVERT (geth answers -32000 with the VM error). */
export class ExecutionFailedError extends ChainError {
  constructor(message: string) {
    super('EXECUTION_FAILED', message);
  }
}

/** geth's abi.panicReasons. */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const word = (b: Uint8Array, at: number): bigint | undefined =>
  b.length >= at + 32 ? BigInt('0x' + Buffer.from(b.subarray(at, at + 32)).toString('hex')) : undefined;

/** geth's abi.UnpackRevert: the reason of Error(string) or Panic(uint256), else undefined. */
export function unpackRevert(revert: Uint8Array): string | undefined {
  if (revert.length < 4) return undefined;
  const selector = Buffer.from(revert.subarray(0, 4)).toString('hex');
  const body = revert.subarray(4);
  if (selector === PANIC_SELECTOR) {
    const code = word(body, 0);
    if (code === undefined) return undefined;
    return PANIC_REASONS[Number(code)] !== undefined && code < 0x100n
      ? PANIC_REASONS[Number(code)]
      : `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR) return undefined;
  const offset = word(body, 0);
  if (offset === undefined || offset > BigInt(body.length)) return undefined;
  const len = word(body, Number(offset));
  if (len === undefined) return undefined;
  const start = Number(offset) + 32;
  if (BigInt(body.length) < BigInt(start) + len) return undefined;
  return Buffer.from(body.subarray(start, start + Number(len))).toString('utf8');
}

const callObject: ParamCodec<CallObject> = { optional: false, parse: parseCallObject };
const stateOverrides: ParamCodec<AccountOverride[]> = { optional: false, parse: parseStateOverrides };
const blockOverrides: ParamCodec<BlockOverrides> = { optional: false, parse: parseBlockOverrides };

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };

/** Throws what eth_call and eth_estimateGas answer for a revert or a failure. */
export function outcome(r: CallResult | EstimateResult): void {
  if (r.status === 'revert') throw new ExecutionRevertedError(r.returnData);
  if (r.status === 'failure') throw new ExecutionFailedError(r.error);
}

/**
 * `maxResponseBytes` (`[evm] max_response_bytes`): an eth_call whose return data would not fit in an
 * answer is refused with the key named, before its hex text is built.
 */
export function simulateMethods(
  sim: SimulationBackend,
  resolve: Resolver,
  maxResponseBytes = Infinity,
): MethodTable {
  return {
    eth_call: method(
      [callObject, optional(p.blockRef), optional(stateOverrides), optional(blockOverrides)],
      async (call, ref, state, block) => {
        const r = await sim.call(resolve.statePoint(ref ?? LATEST), call, state, block);
        outcome(r);
        const out = (r as { returnData: Uint8Array }).returnData;
        if (2 * out.length + 64 > maxResponseBytes) {
          throw new LimitExceededError(
            `result too large: ${out.length} bytes of return data exceed max_response_bytes = ${maxResponseBytes} bytes ([evm] max_response_bytes) as hex`,
          );
        }
        return data(out);
      },
    ),
    // geth (1.14.9+) takes block overrides here too
    eth_estimateGas: method(
      [callObject, optional(p.blockRef), optional(stateOverrides), optional(blockOverrides)],
      async (call, ref, state, block) => {
        const r = await sim.estimateGas(resolve.statePoint(ref ?? LATEST), call, state, block);
        outcome(r);
        return quantity((r as { gas: bigint }).gas);
      },
    ),
    eth_createAccessList: method([callObject, optional(p.blockRef)], async (call, ref) => {
      const r = await sim.createAccessList(resolve.statePoint(ref ?? LATEST), call);
      // geth's accessListResult field order: accessList, error (omitted when none), gasUsed
      return {
        accessList: r.accessList.map((e) => ({
          address: address(e.address),
          storageKeys: e.storageKeys.map(hash32),
        })),
        ...(r.error !== undefined ? { error: r.error } : {}),
        gasUsed: quantity(r.gasUsed),
      };
    }),
  };
}
