/**
 * geth's flatCallTracer (eth/tracers/native/call_flat.go): the callTracer's tree flattened into
 * Parity-style traces `{action, blockHash, blockNumber, error?, result?, subtraces, traceAddress,
 * transactionHash, transactionPosition, type}`. Calls and static calls to precompiles are dropped
 * unless `includePrecompiles`; `convertParityErrors` rewrites errors in Parity's words. A failed
 * frame keeps its `result` only when it reverted (the revert data is useful). Block and transaction
 * fields come from the TraceTxContext (blockHash/transactionHash null when absent, as for a call).
 */
import { parityError } from './geth-errors.ts';
import { CallTracer, type CallFrame } from './call-tracer.ts';
import { hexAddress, hexBytes, quantity } from './hex.ts';
import type { TraceTxContext } from './tracer.ts';
import { isPrecompile } from './simple-tracers.ts';
import type { Enter, Exit } from './types.ts';

export interface FlatCallTracerConfig {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

export interface FlatCallFrameJson {
  action: Record<string, string>;
  blockHash: string | null;
  blockNumber: number;
  error?: string;
  result?: Record<string, string>;
  subtraces: number;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number;
  type: string;
}

export class FlatCallTracer extends CallTracer {
  override readonly name = 'flatCallTracer';
  private readonly flatCfg: FlatCallTracerConfig;

  constructor(cfg: FlatCallTracerConfig, ctx: TraceTxContext) {
    super({ onlyTopCall: false, withLog: false }, ctx);
    this.flatCfg = cfg;
  }

  override onEnter(e: Enter): void {
    super.onEnter(e);
    if (e.depth === 0) return;
    // child calls carry a value even where geth passes none (STATICCALL)
    const frame = this.stack[this.stack.length - 1];
    if (frame.value === undefined) frame.value = 0n;
  }

  override onExit(e: Exit): void {
    super.onExit(e);
    if (e.depth === 0 || this.flatCfg.includePrecompiles) return;
    const parent = this.stack[this.stack.length - 1];
    const call = parent?.calls[parent.calls.length - 1];
    if (call && (call.type === 'CALL' || call.type === 'STATICCALL') && isPrecompile(call.to))
      parent.calls.pop();
  }

  override result(): FlatCallFrameJson[] {
    if (!this.top) return [];
    const out: FlatCallFrameJson[] = [];
    this.flatten(this.top, [], out);
    return out;
  }

  private flatten(f: CallFrame, traceAddress: number[], out: FlatCallFrameJson[]): void {
    const ctx = this.ctx;
    let action: Record<string, string>;
    let result: Record<string, string> | undefined;
    let type: string;
    switch (f.type) {
      case 'CREATE':
      case 'CREATE2':
        type = 'create';
        action = {
          creationMethod: f.type.toLowerCase(),
          from: hexAddress(f.from),
          gas: quantity(f.gas),
          init: hexBytes(f.input),
        };
        if (f.value !== undefined) action.value = quantity(f.value);
        result = { code: hexBytes(f.output), gasUsed: quantity(f.gasUsed) };
        if (f.to) result = { address: hexAddress(f.to), ...result };
        break;
      case 'SELFDESTRUCT':
        type = 'suicide';
        action = { address: hexAddress(f.from) };
        if (f.value !== undefined) action.balance = quantity(f.value);
        if (f.to) action.refundAddress = hexAddress(f.to);
        result = undefined;
        break;
      default:
        type = 'call';
        action = {
          callType: f.type.toLowerCase(),
          from: hexAddress(f.from),
          gas: quantity(f.gas),
          input: hexBytes(f.input),
        };
        if (f.to) action.to = hexAddress(f.to);
        if (f.value !== undefined) action.value = quantity(f.value);
        result = { gasUsed: quantity(f.gasUsed), output: hexBytes(f.output) };
    }
    const frame: FlatCallFrameJson = {
      action,
      blockHash: ctx.blockHash ? hexBytes(ctx.blockHash) : null,
      blockNumber: Number(ctx.blockHeight),
    } as FlatCallFrameJson;
    if (f.error) frame.error = this.flatCfg.convertParityErrors ? parityError(f.error) : f.error;
    if (f.error && f.error !== 'execution reverted') result = undefined;
    if (result) frame.result = result;
    frame.subtraces = f.calls.length;
    frame.traceAddress = traceAddress;
    frame.transactionHash = ctx.txHash ? hexBytes(ctx.txHash) : null;
    frame.transactionPosition = ctx.txIndex ?? 0;
    frame.type = type;
    out.push(frame);
    f.calls.forEach((c, i) => this.flatten(c, [...traceAddress, i], out));
  }
}
