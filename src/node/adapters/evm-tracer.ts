/**
 * rpc/evm's TraceBackend, over chain/trace-replay.ts (faithful block replays
 * from the State Store) and execution/tracing (the tracers), plus execution/simulate for
 * debug_traceCall. `NodeTracer.traceBlock` is also what the legacy chain_traceBlock* methods call.
 *
 * The deadline: checked before every tx of a replay (which also yields to the event loop every few
 * milliseconds, so a long block trace does not stall block production), and handed to the tracer,
 * which aborts the EVM run it is attached to (see execution/tracing/index.ts).
 */
import type { Chain } from '../../chain/chain.ts';
import { NotExecutedTraceError, TraceReplayer } from '../../chain/trace-replay.ts';
import { SimulationTimeoutError } from '../../execution/simulation/simulate.ts';
import {
  createTracer,
  TraceBudget,
  type TraceConfig,
  TraceConfigError,
  TraceDeadline,
  TraceTimeoutError,
  type TxTracer,
} from '../../execution/tracing/index.ts';
import type { CallObject } from '../../rpc/codecs/call.ts';
import {
  type BlockTraceEntry,
  type TraceBackend,
  type TraceCallOptions,
  type TraceOptions,
} from '../../rpc/evm/index.ts';
import type { StateStore } from '../../storage/ss/types.ts';
import { yieldToBlocks } from '../../util/block-first.ts';
import { InvalidParamsError } from '../../rpc/server/errors.ts';
import { errorMessage } from '../../util/errors.ts';
import type { NodeSimulation } from './evm-simulation.ts';

/**
 * The deadline between the txs of a replay (the tracer checks it on every traced opcode): expiry, and
 * a macrotask turn every few milliseconds, since untraced txs before the traced one never yield.
 */
export function pacer(deadline: TraceDeadline): () => Promise<void> {
  let lastYield = performance.now();
  return async () => {
    if (deadline.expired()) throw new TraceTimeoutError();
    if (performance.now() - lastYield > 8) {
      await yieldToBlocks();
      lastYield = performance.now();
    }
  };
}

export interface TracerModules {
  chain: Chain;
  /** Replays read the State Store at the traced block's parent state. */
  ss: StateStore;
  /** for debug_traceCall */
  simulation: NodeSimulation;
  /** bytes of output one debug_trace* answer may hold (`[evm] max_trace_response_bytes`) */
  maxTraceBytes: number;
}

/** The tracer options of a request, as execution/tracing takes them. */
function traceConfig(o: TraceOptions): TraceConfig {
  return {
    tracer: o.tracer,
    tracerConfig: o.tracerConfig,
    disableStack: o.disableStack,
    disableStorage: o.disableStorage,
    enableMemory: o.enableMemory,
    enableReturnData: o.enableReturnData,
    limit: o.limit,
  };
}

export class NodeTracer implements TraceBackend {
  private readonly d: TracerModules;
  readonly replayer: TraceReplayer;

  constructor(d: TracerModules) {
    this.d = d;
    this.replayer = new TraceReplayer(d.chain, d.ss);
  }

  get chain(): Chain {
    return this.d.chain;
  }

  /**
   * Refuses an unknown tracer or a bad tracerConfig before any replay work (createTracer would too,
   * but only once the replay reaches the traced tx). A bad tracerConfig is a bad parameter (-32602).
   */
  private checkTracer(o: TraceOptions): void {
    try {
      createTracer(traceConfig(o), { blockHeight: 0n });
    } catch (err) {
      if (err instanceof TraceConfigError) throw new InvalidParamsError(`invalid argument 1: ${err.message}`);
      throw err;
    }
  }

  async traceTransaction(
    height: number,
    evmIndex: number,
    o: TraceOptions,
    timeoutMs: number,
  ): Promise<unknown> {
    this.checkTracer(o);
    const deadline = new TraceDeadline(timeoutMs);
    const budget = new TraceBudget(this.d.maxTraceBytes);
    const config = traceConfig(o);
    const blockHash = this.d.chain.blocks.blockHashByHeight(height);
    let tracer: TxTracer | undefined;
    const replayed = await this.replayer.replay(height, {
      lastEvmIndex: evmIndex,
      check: pacer(deadline),
      execOptions: (i, txHash) =>
        i === evmIndex
          ? {
              tracer: (tracer = createTracer(config, {
                txHash,
                txIndex: i,
                blockHeight: BigInt(height),
                blockHash,
                deadline,
                budget,
              })),
            }
          : undefined,
    });
    const traced = replayed[replayed.length - 1];
    if (traced?.outcome.failedBeforeExecution)
      throw new NotExecutedTraceError(traced.hash, height, traced.outcome.error);
    return tracer!.result();
  }

  /** Traces of every Ethereum tx of block `height`; the legacy chain_traceBlock* methods use it too. */
  async traceBlock(height: number, o: TraceOptions, timeoutMs: number): Promise<BlockTraceEntry[]> {
    this.checkTracer(o);
    const deadline = new TraceDeadline(timeoutMs);
    // one budget for the block: its traces are one answer
    const budget = new TraceBudget(this.d.maxTraceBytes);
    const config = traceConfig(o);
    const blockHash = this.d.chain.blocks.blockHashByHeight(height);
    const tracers: TxTracer[] = [];
    const replayed = await this.replayer.replay(height, {
      check: pacer(deadline),
      execOptions: (i, txHash) => ({
        tracer: (tracers[i] = createTracer(config, {
          txHash,
          txIndex: i,
          blockHeight: BigInt(height),
          blockHash,
          deadline,
          budget,
        })),
      }),
    });
    return replayed.map(({ evmIndex, hash, outcome }) => {
      if (outcome.failedBeforeExecution)
        return { txHash: hash, error: new NotExecutedTraceError(hash, height, outcome.error).message };
      try {
        return { txHash: hash, result: tracers[evmIndex].result() };
      } catch (err) {
        return { txHash: hash, error: errorMessage(err) };
      }
    });
  }

  async traceCall(
    height: number,
    call: CallObject,
    o: TraceCallOptions,
    timeoutMs: number,
  ): Promise<unknown> {
    this.checkTracer(o);
    const deadline = new TraceDeadline(timeoutMs);
    const sim = await this.d.simulation.open(height, call, o.stateOverrides, o.blockOverrides, timeoutMs);
    try {
      const budget = new TraceBudget(this.d.maxTraceBytes);
      const tracer = createTracer(traceConfig(o), { blockHeight: sim.env.height, deadline, budget });
      await sim.run(call, sim.callGas(call), false, { tracer });
      return tracer.result();
    } catch (err) {
      // the simulation's own budget (the same length) may be the one that fires
      if (err instanceof SimulationTimeoutError) throw new TraceTimeoutError();
      throw err;
    } finally {
      sim.close();
    }
  }
}
