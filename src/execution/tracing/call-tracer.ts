/**
 * geth's callTracer (eth/tracers/native/call.go, 1.14): the call tree of a transaction. Options:
 * `onlyTopCall` (no sub-calls), `withLog` (each frame's logs with `position`, the number of sub-calls
 * made before the log; logs of failed frames and their children are dropped).
 *
 * Fields, in geth's order: from, gas, gasUsed, to (absent for a failed creation), input, output
 * (absent when empty), error, revertReason (decoded Error(string)/Panic), calls, logs, value (absent
 * where geth passes none: STATICCALL), type. The top frame's gas is the transaction's gas limit and
 * its gasUsed the receipt's.
 */
import { abiDecodeRevert } from './revert-reason.ts';
import { hexAddress, hexBytes, quantity } from './hex.ts';
import { TxTracer, type TraceTxContext } from './tracer.ts';
import type { CallType, Enter, Exit, TraceLog, TxEnd, TxStart } from './types.ts';

export interface CallLogJson {
  address: string;
  topics: string[];
  data: string;
  position: string;
}

export interface CallFrameJson {
  from: string;
  gas: string;
  gasUsed: string;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrameJson[];
  logs?: CallLogJson[];
  value?: string;
  type: string;
}

/** A frame as the tracer builds it (flatCallTracer reads these too). */
export interface CallFrame {
  type: CallType;
  from: Uint8Array;
  gas: bigint;
  gasUsed: bigint;
  to?: Uint8Array;
  input: Uint8Array;
  output: Uint8Array;
  error?: string;
  revertReason?: string;
  calls: CallFrame[];
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array; position: number }[];
  value?: bigint;
  reverted: boolean;
  /** the top frame only: the gas its execution got (limit less intrinsic gas), as Parity reports it */
  execGas?: bigint;
  /** the top frame only: the gas its execution used, before refunds */
  execGasUsed?: bigint;
}

export interface CallTracerConfig {
  onlyTopCall: boolean;
  withLog: boolean;
}

export class CallTracer extends TxTracer {
  readonly name: string = 'callTracer';
  protected readonly cfg: CallTracerConfig;
  protected readonly stack: CallFrame[] = [];
  protected top?: CallFrame;
  private gasLimit = 0n;
  private depth = 0;

  constructor(cfg: CallTracerConfig, ctx: TraceTxContext) {
    super(ctx);
    this.cfg = cfg;
  }

  override onTxStart(tx: TxStart): void {
    this.gasLimit = tx.gasLimit;
  }

  override onEnter(e: Enter): void {
    this.depth = e.depth;
    if (this.cfg.onlyTopCall && e.depth > 0) return;
    // a frame's JSON: addresses, numbers, keys, and its input in hex
    this.charge(260 + 2 * e.input.length);
    const frame: CallFrame = {
      type: e.type,
      from: e.from,
      gas: e.depth === 0 ? this.gasLimit : e.gas,
      gasUsed: 0n,
      to: e.to,
      input: e.input,
      output: new Uint8Array(0),
      calls: [],
      logs: [],
      value: e.value,
      reverted: false,
    };
    if (e.depth === 0) {
      frame.execGas = e.gas;
      this.top = frame;
    }
    this.stack.push(frame);
  }

  override onExit(e: Exit): void {
    this.charge(2 * e.output.length + (e.error?.length ?? 0));
    if (e.depth === 0) {
      if (this.stack.length === 1) {
        this.stack[0].execGasUsed = e.gasUsed;
        processOutput(this.stack[0], e);
      }
      return;
    }
    this.depth = e.depth - 1;
    if (this.cfg.onlyTopCall) return;
    if (this.stack.length <= 1) return;
    const frame = this.stack.pop()!;
    frame.gasUsed = e.gasUsed;
    processOutput(frame, e);
    this.stack[this.stack.length - 1].calls.push(frame);
  }

  override onLog(log: TraceLog): void {
    if (!this.cfg.withLog) return;
    if (this.cfg.onlyTopCall && this.depth > 0) return;
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return;
    this.charge(160 + 69 * log.topics.length + 2 * log.data.length);
    frame.logs.push({
      address: log.address,
      topics: log.topics,
      data: log.data,
      position: frame.calls.length,
    });
  }

  override onTxEnd(end: TxEnd): void {
    if (!this.top) return;
    this.top.gasUsed = end.gasUsed;
    if (this.cfg.withLog) clearFailedLogs(this.top, false);
  }

  result(): unknown {
    return this.tree();
  }

  tree(): CallFrameJson | null {
    return this.top ? frameJson(this.top) : null;
  }

  /** The call tree as recorded (the Parity renderings read it); undefined before the run. */
  frames(): CallFrame | undefined {
    return this.top;
  }
}

function processOutput(f: CallFrame, e: Exit): void {
  if (e.error === undefined) {
    f.output = e.output;
    return;
  }
  f.error = e.error;
  f.reverted = e.reverted;
  if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined;
  if (e.error !== 'execution reverted' || e.output.length === 0) return;
  f.output = e.output;
  if (e.output.length < 4) return;
  f.revertReason = abiDecodeRevert(e.output);
}

function clearFailedLogs(f: CallFrame, parentFailed: boolean): void {
  const failed = f.reverted || parentFailed;
  if (failed) f.logs = [];
  for (const c of f.calls) clearFailedLogs(c, failed);
}

export function frameJson(f: CallFrame): CallFrameJson {
  const out: CallFrameJson = {
    from: hexAddress(f.from),
    gas: quantity(f.gas),
    gasUsed: quantity(f.gasUsed),
  } as CallFrameJson;
  if (f.to) out.to = hexAddress(f.to);
  out.input = hexBytes(f.input);
  if (f.output.length > 0) out.output = hexBytes(f.output);
  if (f.error) out.error = f.error;
  if (f.revertReason) out.revertReason = f.revertReason;
  if (f.calls.length > 0) out.calls = f.calls.map(frameJson);
  if (f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: hexAddress(l.address),
      topics: l.topics.map(hexBytes),
      data: hexBytes(l.data),
      position: quantity(l.position),
    }));
  }
  if (f.value !== undefined) out.value = quantity(f.value);
  out.type = f.type;
  return out;
}
