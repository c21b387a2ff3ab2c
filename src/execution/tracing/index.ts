/**
 * debug_trace* tracers with geth's output formats (geth 1.14), field for field.
 *
 * Use: `const tracer = createTracer(config, ctx)`, then run ONE transaction with it —
 * `BlockExecutor.execute(tx, otherGas, { tracer })` or `Simulation.run(msg, gas, false, { tracer })` —
 * then `tracer.result()` is the JSON value geth returns for that transaction. A tracer is single-use.
 * Without a tracer the executor and the simulation register no EVM listeners at all.
 *
 * Errors:
 * - an unknown tracer name (JavaScript tracers included) → ChainError 'TRACE_UNKNOWN_TRACER', whose
 *   message names the allowed tracers; a malformed `tracerConfig` → 'TRACE_INVALID_CONFIG' (TraceConfigError).
 *
 * Time limits (the caller decides the budget; the tracer enforces it):
 * - `ctx.deadline = new TraceDeadline(ms)`: checked on every traced opcode; when it passes, the run
 *   throws TraceTimeoutError (ChainError 'TRACE_TIMEOUT', message "execution timeout" as geth). The
 *   check yields to the event loop every few ms, so timers and other requests keep running.
 * - `tracer.abort(reason)`: from anywhere (e.g. a timer, a closed connection); the run throws `reason`
 *   at its next opcode.
 * - `ctx.budget = new TraceBudget(bytes)`: every tracer charges the output it keeps, about its JSON
 *   size, as it keeps it; past the budget the run throws TraceTooLargeError ('TRACE_TOO_LARGE').
 *   In all three cases `execute`/`run` throw (they do not report a failed or rejected transaction) and their
 *   state changes are undone; the executor should not be used for further transactions afterwards.
 *
 * Chain differences kept on purpose (see each tracer): the coinbase is the fee collector and is
 * credited the whole fee (prestate `post`); balances are bank balances in wei (eth_getBalance's view).
 *
 * Where geth versions differ, these print geth 1.14's form: struct logs with `returnValue`, memory
 * words and storage without `0x`, `refund`/`returnData` only when non-empty; callTracer logs without
 * `index`. From later geth: prestateTracer also reads EIP-7702 authorities and delegates.
 * test/unit/execution/tracing/reference.test.ts compares all of them with a reference node.
 */
import { ChainError } from '../../util/errors.ts';
import { CallTracer } from './call-tracer.ts';
import { boolFields } from './config.ts';
import { FlatCallTracer } from './flat-call-tracer.ts';
import { PrestateTracer } from './prestate-tracer.ts';
import { FourByteTracer, NoopTracer } from './simple-tracers.ts';
import { StructLogger } from './struct-logger.ts';
import { TxTracer, type TraceTxContext } from './tracer.ts';

export { TraceConfigError } from './config.ts';
export { TraceDeadline, TraceTimeoutError } from './deadline.ts';
export { TraceBudget, TraceTooLargeError } from './budget.ts';
export { TxTracer, type TraceTxContext } from './tracer.ts';
export { StructLogger, type StructLoggerResult } from './struct-logger.ts';
export { CallTracer, type CallFrameJson } from './call-tracer.ts';
export { FlatCallTracer, type FlatCallFrameJson } from './flat-call-tracer.ts';
export { PrestateTracer } from './prestate-tracer.ts';
export { ParityTracer, type ParityTraceResult, type ParityTraceType } from './parity-tracer.ts';
export type { LocalizedTraceJson, ParityTraceJson } from './parity.ts';
export type { StateDiffJson } from './state-diff.ts';
export { FourByteTracer, NoopTracer } from './simple-tracers.ts';

/** geth's TraceConfig, already decoded from JSON by rpc/. */
export interface TraceConfig {
  /** undefined or '': the struct logger */
  tracer?: string;
  /** raw; each tracer validates its own (onlyTopCall, withLog, diffMode, ...) */
  tracerConfig?: Record<string, unknown>;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  limit?: number;
}

export const TRACER_NAMES: readonly string[] = [
  'callTracer',
  'flatCallTracer',
  'prestateTracer',
  '4byteTracer',
  'noopTracer',
];

export class UnknownTracerError extends ChainError {
  constructor(name: string) {
    super(
      'TRACE_UNKNOWN_TRACER',
      `tracer ${JSON.stringify(name)} is not available: allowed tracers are ${TRACER_NAMES.join(', ')} (or no tracer for the struct logger); JavaScript tracers are not supported`,
    );
  }
}

export function createTracer(config: TraceConfig, ctx: TraceTxContext): TxTracer {
  const name = config.tracer ?? '';
  switch (name) {
    case '':
      return new StructLogger(
        {
          disableStack: config.disableStack,
          disableStorage: config.disableStorage,
          enableMemory: config.enableMemory,
          enableReturnData: config.enableReturnData,
          limit: config.limit,
        },
        ctx,
      );
    case 'callTracer':
      return new CallTracer(boolFields(name, config.tracerConfig, ['onlyTopCall', 'withLog'] as const), ctx);
    case 'flatCallTracer':
      return new FlatCallTracer(
        boolFields(name, config.tracerConfig, ['convertParityErrors', 'includePrecompiles'] as const),
        ctx,
      );
    case 'prestateTracer':
      return new PrestateTracer(config.tracerConfig, ctx);
    case '4byteTracer':
      return new FourByteTracer(ctx);
    case 'noopTracer':
      return new NoopTracer(ctx);
    default:
      throw new UnknownTracerError(name);
  }
}
