/**
 * rpc/evm's ParityTraceBackend (the trace_* methods): block replays through chain/trace-replay.ts
 * with a ParityTracer on each traced tx, and calls and raw txs run as a simulation whose effects stay
 * from one call to the next (trace_callMany), each with its own tracer. Deadlines, pacing and the
 * output budget as debug_trace*'s (evm-tracer.ts).
 */
import { NotExecutedTraceError } from '../../chain/trace-replay.ts';
import { messageOfTx, SimulationTimeoutError } from '../../execution/simulation/simulate.ts';
import {
  ParityTracer,
  TraceBudget,
  TraceDeadline,
  TraceTimeoutError,
  type TraceTxContext,
} from '../../execution/tracing/index.ts';
import { decodeEthTransaction } from '../../execution/transactions.ts';
import type { CallObject } from '../../rpc/codecs/call.ts';
import type {
  BlockReplay,
  ParityTraceBackend,
  ReplayedTrace,
  TraceResults,
  TraceType,
} from '../../rpc/evm/trace-backend.ts';
import { InvalidParamsError } from '../../rpc/server/errors.ts';
import { errorMessage } from '../../util/errors.ts';
import { type NodeTracer, pacer } from './evm-tracer.ts';
import type { NodeSimulation } from './evm-simulation.ts';

export class NodeParityTracer implements ParityTraceBackend {
  private readonly tracer: NodeTracer;
  private readonly simulation: NodeSimulation;
  private readonly maxTraceBytes: number;

  constructor(tracer: NodeTracer, simulation: NodeSimulation, maxTraceBytes: number) {
    this.tracer = tracer;
    this.simulation = simulation;
    this.maxTraceBytes = maxTraceBytes;
  }

  async replayBlock(
    height: number,
    types: ReadonlySet<TraceType>,
    timeoutMs: number,
    o: BlockReplay = {},
  ): Promise<ReplayedTrace[]> {
    const deadline = new TraceDeadline(timeoutMs);
    // one budget for the answer
    const budget = new TraceBudget(this.maxTraceBytes);
    const chain = this.tracer.chain;
    const blockHash = chain.blocks.blockHashByHeight(height);
    const tracers: ParityTracer[] = [];
    const replayed = await this.tracer.replayer.replay(height, {
      lastEvmIndex: o.lastEvmIndex,
      check: pacer(deadline),
      execOptions: (i, txHash) =>
        !o.only || o.only.has(i)
          ? {
              tracer: (tracers[i] = new ParityTracer(types, {
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
    const out: ReplayedTrace[] = [];
    for (const { evmIndex, hash, outcome } of replayed) {
      const t = tracers[evmIndex];
      if (!t) continue;
      if (outcome.failedBeforeExecution) {
        const why = new NotExecutedTraceError(hash, height, outcome.error).message;
        out.push({ evmIndex, txHash: hash, notExecuted: why });
        continue;
      }
      out.push({ evmIndex, txHash: hash, results: t.result(), traces: t.localizedTraces() });
    }
    return out;
  }

  async traceCalls(
    height: number,
    calls: { call: CallObject; types: ReadonlySet<TraceType> }[],
    timeoutMs: number,
  ): Promise<TraceResults[]> {
    if (calls.length === 0) return [];
    return this.simulate(height, calls[0].call, timeoutMs, async (sim, ctx) => {
      const out: TraceResults[] = [];
      for (const { call, types } of calls) {
        const tracer = new ParityTracer(types, ctx);
        await sim.execute(call, sim.callGas(call), { validation: false, traceTransfers: false, tracer });
        out.push(tracer.result());
      }
      return out;
    });
  }

  async traceRawTransaction(
    height: number,
    raw: Uint8Array,
    types: ReadonlySet<TraceType>,
    timeoutMs: number,
  ): Promise<TraceResults> {
    let msg;
    try {
      msg = messageOfTx(decodeEthTransaction(raw, this.tracer.chain.common));
    } catch (err) {
      throw new InvalidParamsError(`invalid argument 0: ${errorMessage(err)}`);
    }
    return this.simulate(height, msg, timeoutMs, async (sim, ctx) => {
      const tracer = new ParityTracer(types, ctx);
      // a transaction's own gas, checked as a transaction (nonce, fee cap, funds)
      await sim.execute(msg, msg.gas!, { validation: true, traceTransfers: false, tracer });
      return tracer.result();
    });
  }

  private async simulate<T>(
    height: number,
    first: CallObject,
    timeoutMs: number,
    run: (sim: Awaited<ReturnType<NodeSimulation['open']>>, ctx: TraceTxContext) => Promise<T>,
  ): Promise<T> {
    const deadline = new TraceDeadline(timeoutMs);
    const sim = await this.simulation.open(height, first, undefined, undefined, timeoutMs);
    try {
      const budget = new TraceBudget(this.maxTraceBytes);
      return await run(sim, { blockHeight: sim.env.height, deadline, budget });
    } catch (err) {
      // the simulation's own budget (the same length) may be the one that fires
      if (err instanceof SimulationTimeoutError) throw new TraceTimeoutError();
      throw err;
    } finally {
      sim.close();
    }
  }
}
