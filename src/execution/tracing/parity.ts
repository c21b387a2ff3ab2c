/**
 * The Parity/OpenEthereum trace format, rendered from the callTracer's call tree (`CallFrame`): the
 * one rendering behind geth's flatCallTracer and the trace_* methods, so callTracer, flatCallTracer
 * and trace_* describe every call alike. Each frame becomes `{action, error?, result, subtraces,
 * traceAddress, type}` in depth-first order; a localized trace adds the block and transaction fields.
 *
 * The two styles differ only where geth's flatCallTracer and Parity (as reth and anvil serve it) do:
 *
 *   | | `geth` (flatCallTracer) | `parity` (trace_*) |
 *   | top frame's gas / gasUsed | the tx's gas limit / the receipt's gas used | gas after intrinsic gas / gas the execution used, before refunds |
 *   | result of a failed frame (not a revert), of a self-destruct | absent | null |
 *   | errors | geth's words unless convertParityErrors | Parity's words (reth's) |
 *
 * Calls and static calls to precompiles are left out unless `includePrecompiles` (both geth's and
 * reth's default), their parent's `subtraces` counting only what is listed.
 */
import { parityError } from './geth-errors.ts';
import type { CallFrame } from './call-tracer.ts';
import { hexAddress, hexBytes, quantity } from './hex.ts';
import { isPrecompile } from './simple-tracers.ts';

export interface ParityRenderOptions {
  style: 'geth' | 'parity';
  /** geth style only: Parity's error words (parity style always uses them) */
  convertParityErrors?: boolean;
  includePrecompiles?: boolean;
}

export interface ParityTraceJson {
  action: Record<string, string>;
  error?: string;
  result?: Record<string, string> | null;
  subtraces: number;
  traceAddress: number[];
  type: 'call' | 'create' | 'suicide';
}

/** Where a transaction sits (the localized fields; hashes null when absent, as for a call). */
export interface TracePosition {
  blockHash?: Uint8Array;
  blockHeight: bigint;
  txHash?: Uint8Array;
  txIndex?: number;
}

export interface LocalizedTraceJson {
  action: Record<string, string>;
  blockHash: string | null;
  blockNumber: number;
  error?: string;
  result?: Record<string, string> | null;
  subtraces: number;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number;
  type: string;
}

const listed = (f: CallFrame, o: ParityRenderOptions): boolean =>
  o.includePrecompiles === true || !((f.type === 'CALL' || f.type === 'STATICCALL') && isPrecompile(f.to));

/**
 * Parity's words as reth prints them: geth's table, plus the failures geth's table leaves in geth's
 * words (an SSTORE out of gas, a transfer beyond the balance).
 */
function rethError(gethMessage: string): string {
  if (gethMessage.startsWith('out of gas')) return 'Out of gas';
  if (gethMessage === 'insufficient balance for transfer') return 'Insufficient balance for transfer';
  return parityError(gethMessage);
}

/** The traces of a transaction's call tree, depth first. */
export function parityTraces(top: CallFrame, o: ParityRenderOptions): ParityTraceJson[] {
  const out: ParityTraceJson[] = [];
  flatten(top, [], true, o, out);
  return out;
}

/** A trace with its block and transaction (the field order of geth's flatCallTracer and reth's). */
export function localized(t: ParityTraceJson, at: TracePosition): LocalizedTraceJson {
  const out = {
    action: t.action,
    blockHash: at.blockHash ? hexBytes(at.blockHash) : null,
    blockNumber: Number(at.blockHeight),
  } as LocalizedTraceJson;
  if (t.error !== undefined) out.error = t.error;
  if (t.result !== undefined) out.result = t.result;
  out.subtraces = t.subtraces;
  out.traceAddress = t.traceAddress;
  out.transactionHash = at.txHash ? hexBytes(at.txHash) : null;
  out.transactionPosition = at.txIndex ?? 0;
  out.type = t.type;
  return out;
}

function flatten(
  f: CallFrame,
  traceAddress: number[],
  isTop: boolean,
  o: ParityRenderOptions,
  out: ParityTraceJson[],
): void {
  const parity = o.style === 'parity';
  const gas = isTop && parity ? (f.execGas ?? f.gas) : f.gas;
  const gasUsed = isTop && parity ? (f.execGasUsed ?? f.gasUsed) : f.gasUsed;
  // a child call carries a value even where geth passes none (STATICCALL)
  const value = f.value ?? (isTop ? undefined : 0n);
  let action: Record<string, string>;
  let result: Record<string, string> | null;
  let type: ParityTraceJson['type'];
  switch (f.type) {
    case 'CREATE':
    case 'CREATE2':
      type = 'create';
      action = { from: hexAddress(f.from), gas: quantity(gas), init: hexBytes(f.input) };
      if (value !== undefined) action.value = quantity(value);
      action.creationMethod = f.type.toLowerCase();
      result = { code: hexBytes(f.output), gasUsed: quantity(gasUsed) };
      if (f.to) result = { address: hexAddress(f.to), ...result };
      break;
    case 'SELFDESTRUCT':
      type = 'suicide';
      action = { address: hexAddress(f.from) };
      if (value !== undefined) action.balance = quantity(value);
      if (f.to) action.refundAddress = hexAddress(f.to);
      result = null;
      break;
    default:
      type = 'call';
      action = {
        from: hexAddress(f.from),
        callType: f.type.toLowerCase(),
        gas: quantity(gas),
        input: hexBytes(f.input),
      };
      if (f.to) action.to = hexAddress(f.to);
      if (value !== undefined) action.value = quantity(value);
      result = { gasUsed: quantity(gasUsed), output: hexBytes(f.output) };
  }
  const trace = { action } as ParityTraceJson;
  if (f.error) {
    trace.error = parity ? rethError(f.error) : o.convertParityErrors ? parityError(f.error) : f.error;
    // the revert data is kept: it says why
    if (f.error !== 'execution reverted') result = null;
  }
  if (result !== null || parity) trace.result = result;
  const children = f.calls.filter((c) => listed(c, o));
  trace.subtraces = children.length;
  trace.traceAddress = traceAddress;
  trace.type = type;
  out.push(trace);
  children.forEach((c, i) => flatten(c, [...traceAddress, i], false, o, out));
}
