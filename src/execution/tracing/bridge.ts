/**
 * Turns ethereumjs's EVM events into geth's tracer hooks (types.ts) for one traced execution.
 *
 * Listeners exist only between `attachTracer` and `detach()`: the interpreter builds step events only
 * when a `step` listener is registered, so untraced execution pays nothing. All three listeners take
 * ethereumjs's `(data, resolve)` form, which the EVM awaits, so tracers may read state at each step.
 *
 * What ethereumjs does not say and geth prints is derived here:
 * - the call type of a frame (CALL, DELEGATECALL, CREATE2, …) and geth's `from`/`to` of it are taken
 *   from the opcode step that opened it (a DELEGATECALL's `to` is the code address, its `from` the
 *   calling contract, its value the caller's);
 * - a CALL-family step's gas cost includes the gas handed to the callee (geth's callGasTemp, without
 *   the stipend): ethereumjs reports only the opcode's own cost;
 * - a SELFDESTRUCT that executes is reported as geth's SELFDESTRUCT enter/exit pair, with the balance
 *   read at the opcode;
 * - logs (geth's OnLog) come from LOG steps that can pay for themselves in a non-static frame;
 * - an opcode that failed before it ran (out of gas, stack) is reported with onOpcodeFault;
 * - the return data of the frame's last call (ethereumjs's step has none) is tracked per frame.
 */
import type { StateManagerInterface } from '@ethereumjs/common';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Address,
  bigIntToUnpaddedBytes,
  eoaCode7702RecoverAuthority,
  generateAddress,
  generateAddress2,
} from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ChainError } from '../../util/errors.ts';
import { gethError, isPreExecutionError } from './geth-errors.ts';
import { addressOfWord, memorySlice, pad32, word } from './hex.ts';
import type { TxTracer } from './tracer.ts';
import type { CallType, TraceState, TxEnd, TxStart } from './types.ts';

const EMPTY = new Uint8Array(0);
/** EIP-2200: SSTORE fails when no more than the call stipend is left */
const SSTORE_SENTRY = 2300n;
const CALL_STIPEND = 2300n;
/** geth's params.CallCreateDepth */
const MAX_CALL_DEPTH = 1024;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** A call or creation opened by a step; the callee's message consumes it. */
interface Pending {
  /** onEnter depth of the frame whose opcode opened it */
  depth: number;
  type: CallType;
  from: Uint8Array;
  to: Uint8Array;
  value: bigint | undefined;
  /** what geth would hand the callee, for a call that fails before it starts */
  gas: bigint;
  input: Uint8Array;
}

interface Frame {
  depth: number;
  type: CallType;
  /** the account whose storage and balance the frame's code works on */
  address: Uint8Array;
  value: bigint;
  isStatic: boolean;
  returnData: Uint8Array;
  selfdestruct?: { from: Uint8Array; to: Uint8Array; value: bigint };
  lastStep?: { code: number; name: string; stackLen: number; seq: number; gas: bigint };
}

export interface TraceSession {
  /** before the transaction touches state (the prestate is read here) */
  start(): Promise<void>;
  /** after every chain rule of the transaction is applied (fees included) */
  end(end: TxEnd): Promise<void>;
  /** removes the listeners; safe to call twice */
  detach(): void;
}

export function stateOf(sm: StateManagerInterface): TraceState {
  return {
    balance: async (a) => (await sm.getAccount(new Address(a)))?.balance ?? 0n,
    nonce: async (a) => (await sm.getAccount(new Address(a)))?.nonce ?? 0n,
    code: (a) => sm.getCode(new Address(a)),
    storage: async (a, slot) => pad32(await sm.getStorage(new Address(a), slot)),
  };
}

/** geth's OpCode.String() for what ethereumjs names an opcode. */
export function gethOpName(code: number, name: string): string {
  if (code === 0x44) return 'DIFFICULTY';
  if (name === 'INVALID' && code !== 0xfe) return `opcode 0x${code.toString(16)} not defined`;
  return name;
}

/** The transaction facts the tracers start from; `authorities` are recovered from a type-4 list. */
export function txStartOf(
  tx: TypedTransaction,
  from: Uint8Array,
  coinbase: Uint8Array,
): Omit<TxStart, 'created'> {
  const authorities: Uint8Array[] = [];
  const list = (tx as { authorizationList?: unknown[] }).authorizationList;
  for (const item of list ?? []) {
    try {
      authorities.push(eoaCode7702RecoverAuthority(item as never).bytes);
    } catch {
      // geth skips authorizations whose signature does not recover
    }
  }
  return {
    from,
    to: tx.to?.bytes,
    value: tx.value,
    gasLimit: tx.gasLimit,
    input: tx.data,
    coinbase,
    authorities,
  };
}

export function attachTracer(
  vm: VM,
  tracer: TxTracer,
  tx: Omit<TxStart, 'created'>,
  stateManager: StateManagerInterface,
): TraceSession {
  const events = vm.evm.events;
  if (!events) throw new ChainError('UNSUPPORTED', 'the EVM has no event emitter to trace with');
  tracer.claim();
  const state = stateOf(stateManager);
  const frames: Frame[] = [];
  let pending: Pending | undefined;
  let created: Uint8Array | undefined;
  let seq = 0;
  const deadline = tracer.ctx.deadline;

  const onBefore = (msg: Message, resolve?: (r?: unknown) => void) => {
    let entered: void | Promise<void> = undefined;
    try {
      const depth = msg.depth;
      let type: CallType;
      let from: Uint8Array;
      let to: Uint8Array;
      let value: bigint | undefined;
      if (depth === 0) {
        type = tx.to ? 'CALL' : 'CREATE';
        from = tx.from;
        to = tx.to ?? created ?? EMPTY;
        value = msg.value;
      } else if (pending) {
        ({ type, from, to, value } = pending);
      } else {
        // not opened by a step we saw: describe it from the message alone
        type = msg.to ? (msg.isStatic ? 'STATICCALL' : 'CALL') : msg.salt ? 'CREATE2' : 'CREATE';
        from = msg.caller.bytes;
        to = msg.to?.bytes ?? EMPTY;
        value = msg.value;
      }
      pending = undefined;
      const parent = frames[frames.length - 1];
      const address = type === 'DELEGATECALL' || type === 'CALLCODE' ? (parent?.address ?? to) : to;
      frames.push({
        depth,
        type,
        address,
        value: type === 'DELEGATECALL' ? (parent?.value ?? 0n) : (value ?? 0n),
        isStatic: msg.isStatic,
        returnData: EMPTY,
      });
      // ethereumjs hands the callee a view of the caller's memory: copied before it changes
      entered = tracer.onEnter?.({
        depth,
        type,
        from,
        to,
        input: msg.data.slice(),
        gas: msg.gasLimit,
        value,
      });
    } catch (e) {
      // a tracer failure ends the traced run as an abort (the caller's error, not the transaction's)
      tracer.abort(asError(e));
    } finally {
      if (entered)
        entered.then(
          () => resolve?.(),
          (e) => (tracer.abort(asError(e)), resolve?.()),
        );
      else resolve?.();
    }
  };

  const onAfter = (res: EVMResult, resolve?: (r?: unknown) => void) => {
    try {
      const frame = frames.pop();
      if (!frame) return;
      const exec = res.execResult;
      const err = exec.exceptionError?.error;
      if (frame.selfdestruct && !err) {
        const sd = frame.selfdestruct;
        tracer.onEnter?.({
          depth: frame.depth + 1,
          type: 'SELFDESTRUCT',
          from: sd.from,
          to: sd.to,
          input: EMPTY,
          gas: 0n,
          value: sd.value,
        });
        tracer.onExit?.({ depth: frame.depth + 1, output: EMPTY, gasUsed: 0n, reverted: false });
      }
      // a call opened by the frame's last opcode, which then failed, never started
      if (pending?.depth === frame.depth) pending = undefined;
      const last = frame.lastStep;
      const opInfo = last ? { code: last.code, name: last.name, stackLen: last.stackLen } : undefined;
      let error = err ? gethError(err, opInfo) : undefined;
      // geth's SSTORE gas function fails with ErrOutOfGas wrapping the EIP-2200 sentry error
      if (err === 'out of gas' && last?.code === 0x55 && last.gas <= SSTORE_SENTRY) {
        error = 'out of gas: not enough gas for reentrancy sentry';
      }
      if (err && last && last.seq === seq && isPreExecutionError(err)) tracer.onOpcodeFault?.(error!);
      const reverted = err === 'revert';
      const output = !err || reverted ? exec.returnValue.slice() : EMPTY;
      tracer.onExit?.({ depth: frame.depth, output, gasUsed: exec.executionGasUsed, error, reverted: !!err });
      const parent = frames[frames.length - 1];
      if (parent) {
        const isCreate = frame.type === 'CREATE' || frame.type === 'CREATE2';
        parent.returnData = isCreate ? (reverted ? output : EMPTY) : output;
      }
    } catch (e) {
      tracer.abort(asError(e));
    } finally {
      resolve?.();
    }
  };

  const onStep = (ev: InterpreterStep, resolve?: (r?: unknown) => void) => {
    // thrown synchronously, an abort rejects the EVM's await and ends the run with this error
    const stop = tracer.abortReason;
    if (stop) throw stop;
    step(ev).then(
      () => resolve?.(),
      (e) => {
        tracer.abort(asError(e));
        resolve?.();
      },
    );
  };

  /**
   * ethereumjs refuses a call or creation beyond the depth limit or the caller's balance without a
   * message; geth enters and exits such a frame with the error and no gas used.
   */
  const failedFast = async (p: Pending, frame: Frame) => {
    const depth = p.depth + 1;
    const error = depth > MAX_CALL_DEPTH ? 'max call depth exceeded' : 'insufficient balance for transfer';
    await tracer.onEnter?.({
      depth,
      type: p.type,
      from: p.from,
      to: p.to,
      input: p.input,
      gas: p.gas,
      value: p.value,
    });
    tracer.onExit?.({ depth, output: EMPTY, gasUsed: 0n, error, reverted: true });
    frame.returnData = EMPTY;
  };

  const step = async (ev: InterpreterStep) => {
    // a deadline that expires here aborts the tracer: the next step throws
    await deadline?.tick();
    const frame = frames[frames.length - 1];
    const code = ev.opcode.code;
    const stack = ev.stack;
    const n = stack.length;
    const fee = ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee);
    const canPay = ev.gasLeft >= fee;
    const address = ev.address.bytes;
    if (pending && frame && pending.depth === frame.depth) await failedFast(pending, frame);
    pending = undefined;
    let cost = fee;
    const avail = canPay ? ev.gasLeft - fee : 0n;
    const allButOne64th = avail - avail / 64n;
    switch (code) {
      case 0xf1:
      case 0xf2:
      case 0xf4:
      case 0xfa: {
        const withValue = code === 0xf1 || code === 0xf2;
        if (n < (withValue ? 7 : 6)) break;
        const asked = stack[n - 1];
        const handed = asked < allButOne64th ? asked : allButOne64th;
        if (canPay) cost = fee + handed;
        const value = withValue ? stack[n - 3] : code === 0xf4 ? (frame?.value ?? 0n) : undefined;
        const args = withValue ? n - 4 : n - 3;
        pending = {
          depth: frame?.depth ?? 0,
          gas: handed + (withValue && value !== 0n ? CALL_STIPEND : 0n),
          input: memorySlice(ev.memory, stack[args], stack[args - 1]),
          type:
            code === 0xf1
              ? 'CALL'
              : code === 0xf2
                ? 'CALLCODE'
                : code === 0xf4
                  ? 'DELEGATECALL'
                  : 'STATICCALL',
          from: address,
          to: addressOfWord(stack[n - 2]),
          value,
        };
        break;
      }
      case 0xf0:
      case 0xf5: {
        if (n < (code === 0xf0 ? 3 : 4)) break;
        let to: Uint8Array;
        if (code === 0xf0) {
          to = generateAddress(address, bigIntToUnpaddedBytes(await state.nonce(address)));
        } else {
          const init = memorySlice(ev.memory, stack[n - 2], stack[n - 3]);
          to = generateAddress2(address, word(stack[n - 4]), init);
        }
        pending = {
          depth: frame?.depth ?? 0,
          gas: allButOne64th,
          input: memorySlice(ev.memory, stack[n - 2], stack[n - 3]),
          type: code === 0xf0 ? 'CREATE' : 'CREATE2',
          from: address,
          to,
          value: stack[n - 1],
        };
        break;
      }
      case 0xff:
        if (n >= 1 && canPay && frame && !frame.isStatic) {
          frame.selfdestruct = {
            from: address,
            to: addressOfWord(stack[n - 1]),
            value: await state.balance(address),
          };
        }
        break;
    }
    seq++;
    const name = gethOpName(code, ev.opcode.name);
    if (frame) frame.lastStep = { code, name, stackLen: n, seq, gas: ev.gasLeft };
    await tracer.onOpcode?.({
      pc: ev.pc,
      op: code,
      opName: name,
      gas: ev.gasLeft,
      cost,
      depth: ev.depth + 1,
      stack,
      memory: ev.memory,
      returnData: frame?.returnData ?? EMPTY,
      refund: ev.gasRefund,
      address,
      state,
    });
    if (code >= 0xa0 && code <= 0xa4 && tracer.onLog && canPay && frame && !frame.isStatic) {
      const topicCount = code - 0xa0;
      if (n >= 2 + topicCount) {
        const topics: Uint8Array[] = [];
        for (let i = 0; i < topicCount; i++) topics.push(word(stack[n - 3 - i]));
        tracer.onLog({
          depth: frame.depth,
          address,
          topics,
          data: memorySlice(ev.memory, stack[n - 1], stack[n - 2]),
        });
      }
    }
  };

  let attached = false;
  const attach = () => {
    events.on('beforeMessage', onBefore);
    events.on('afterMessage', onAfter);
    events.on('step', onStep);
    attached = true;
  };
  const detach = () => {
    if (!attached) return;
    events.off('beforeMessage', onBefore);
    events.off('afterMessage', onAfter);
    events.off('step', onStep);
    attached = false;
  };

  return {
    async start() {
      if (!tx.to) created = generateAddress(tx.from, bigIntToUnpaddedBytes(await state.nonce(tx.from)));
      await tracer.onTxStart?.({ ...tx, created }, state);
      attach();
    },
    async end(end) {
      detach();
      const stop = tracer.abortReason;
      if (stop) throw stop;
      await tracer.onTxEnd?.(end, state);
    },
    detach,
  };
}

/** keccak-256, for tracers that need code hashes. */
export const keccak = (b: Uint8Array): Uint8Array => keccak_256(b);
