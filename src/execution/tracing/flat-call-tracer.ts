/**
 * geth's flatCallTracer (eth/tracers/native/call_flat.go): the callTracer's tree flattened into
 * Parity-style traces `{action, blockHash, blockNumber, error?, result?, subtraces, traceAddress,
 * transactionHash, transactionPosition, type}` by parity.ts (the rendering trace_* uses too), in its
 * geth style. Calls and static calls to precompiles are dropped unless `includePrecompiles`;
 * `convertParityErrors` rewrites errors in Parity's words. A failed frame keeps its `result` only
 * when it reverted (the revert data is useful). Block and transaction fields come from the
 * TraceTxContext (blockHash/transactionHash null when absent, as for a call).
 */
import { CallTracer } from './call-tracer.ts';
import { localized, parityTraces, type LocalizedTraceJson } from './parity.ts';
import type { TraceTxContext } from './tracer.ts';

export interface FlatCallTracerConfig {
  convertParityErrors: boolean;
  includePrecompiles: boolean;
}

export type FlatCallFrameJson = LocalizedTraceJson;

export class FlatCallTracer extends CallTracer {
  override readonly name = 'flatCallTracer';
  private readonly flatCfg: FlatCallTracerConfig;

  constructor(cfg: FlatCallTracerConfig, ctx: TraceTxContext) {
    super({ onlyTopCall: false, withLog: false }, ctx);
    this.flatCfg = cfg;
  }

  override result(): FlatCallFrameJson[] {
    const top = this.frames();
    if (!top) return [];
    const at = { ...this.ctx, blockHeight: this.ctx.blockHeight };
    return parityTraces(top, { style: 'geth', ...this.flatCfg }).map((t) => localized(t, at));
  }
}
