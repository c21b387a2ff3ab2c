/**
 * rpc/evm's SimulationBackend over execution/simulate (eth_call, eth_estimateGas,
 * eth_createAccessList, and debug_traceCall's run). A simulation on the state after block h reads
 * version h + 1 where the chain's state reads it (chain/state-at.ts: SC while it provably holds that
 * version, the State Store otherwise, the same bytes either way, so one long call may mix them), through
 * the same per-version cache as the account methods.
 */
import { devBlockParams } from '../../chain/block-execution.ts';
import { FEE_COLLECTOR_ADDRESS } from '../../app/evm.ts';
import { type Chain, stateVersion } from '../../chain/chain.ts';
import type { BlockEnv } from '../../execution/block-executor.ts';
import { createAccessList, estimateGas } from '../../execution/simulation/estimate.ts';
import type { NativeSimulator } from '../../execution/simulation/native-binding.ts';
import { Simulation, SimulationError } from '../../execution/simulation/simulate.ts';
import type { AccountOverride, BlockOverrides } from '../../rpc/codecs/overrides.ts';
import type { CallObject } from '../../rpc/codecs/call.ts';
import type { ChainReader, StatePoint } from '../../rpc/evm/backend.ts';
import type { PendingBlocks } from '../../chain/pending-block.ts';
import { readId } from '../../execution/version-reads.ts';
import { HeightPrunedError } from '../../rpc/evm/resolve.ts';
import type { CallResult, SimulationBackend } from '../../rpc/evm/simulate.ts';
import type { MultiBlockSimulation, MultiBlockSimulationBackend } from '../../rpc/evm/simulate-v1.ts';
import { ChainError } from '../../util/errors.ts';

export interface SimulationOptions {
  /** `[evm] simulation_gas_limit` */
  gasCap: bigint;
  /** `[evm] simulation_evm_timeout`, ms */
  timeoutMs: number;
  /** eth_call's engine for the messages it supports (Simulation.callNative); absent: the JS EVM */
  native?: NativeSimulator;
}

export interface SimulationModules {
  chain: Chain;
  /** The eth_ block views (for the requested block's time and base fee). */
  reader: ChainReader;
  /** The pending block (simulations at `pending`); absent: `pending` runs on the latest state. */
  pending?: PendingBlocks;
}

export class NodeSimulation implements SimulationBackend, MultiBlockSimulationBackend {
  private readonly o: SimulationOptions;
  private readonly m: SimulationModules;
  /** Common.chainId() converts on every call */
  private readonly chainId: bigint;
  constructor(o: SimulationOptions, m: SimulationModules) {
    this.o = o;
    this.m = m;
    this.chainId = m.chain.common.chainId();
  }

  /** The block context of `height` (geth runs a call "in" the requested block). */
  private async env(height: number): Promise<BlockEnv> {
    const view = await this.m.reader.block(height);
    if (!view) {
      // the state after a block can be held without the block itself (a node restored from a
      // snapshot of that height): a call needs the block's time and base fee too
      const earliest = this.m.reader.earliestBlockHeight();
      if (height < earliest)
        throw new HeightPrunedError(height, earliest, 'the block of a call', 'not stored');
      throw new ChainError('RPC_BLOCK_MISSING', `block ${height} is not available`);
    }
    // a dev chain's COINBASE and PREVRANDAO as the next block takes them (on any other chain: none)
    const dev = await this.m.chain.stateAt(height).read(devBlockParams);
    return {
      height: BigInt(height),
      timestamp: BigInt(view.timestamp),
      gasLimit: dev.gasLimit ?? this.m.chain.genesisGasLimit,
      baseFee: view.baseFeePerGas,
      coinbase: dev.coinbase ?? FEE_COLLECTOR_ADDRESS,
      ...(dev.prevRandao && { prevRandao: dev.prevRandao }),
      parentAppHash: view.stateRoot,
      blockHash: (n) =>
        n >= 1n && n < BigInt(height) ? this.m.chain.blocks.blockHashByHeight(Number(n)) : undefined,
    };
  }

  /**
   * A simulation on the state after `height`, or on the pending state; the caller must `close()` it
   * (debug_traceCall uses it too).
   */
  async open(
    point: StatePoint,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
    timeoutMs = this.o.timeoutMs,
  ): Promise<Simulation> {
    const chainId = this.chainId;
    if (call.chainId !== undefined && call.chainId !== chainId) {
      throw new SimulationError(
        'invalid',
        `chainId does not match node's (have=${call.chainId}, want=${chainId})`,
      );
    }
    const pending = point === 'pending' ? await this.m.pending?.current() : undefined;
    const height = point === 'pending' ? (pending?.parentHeight ?? this.m.chain.latestHeight) : point;
    const version = stateVersion(height);
    const states = this.m.chain.states;
    const shared = {
      common: this.m.chain.common,
      gasCap: this.o.gasCap,
      timeoutMs,
      stateOverrides,
      blockOverrides,
    };
    const exec = pending?.execution;
    if (!exec) {
      return Simulation.create({
        ...shared,
        env: await this.env(height),
        state: (store, key) => states.source(store, key, version),
        readCache: states.reads.at(version),
      });
    }
    // in the pending block, over the pending txs' writes; the version's shared reads are not used, as
    // they would take in pending values
    const { writes } = exec;
    const latest = await this.env(height);
    return Simulation.create({
      ...shared,
      env: {
        ...latest,
        height: BigInt(exec.height),
        timestamp: exec.timestamp,
        baseFee: exec.baseFee,
        parentAppHash: this.m.chain.appHash,
        blockHash: (n) =>
          n >= 1n && n <= BigInt(height) ? this.m.chain.blocks.blockHashByHeight(Number(n)) : undefined,
      },
      state: (store, key) => {
        const id = readId(store, key);
        return writes.has(id) ? writes.get(id) : states.source(store, key, version);
      },
    });
  }

  async call(
    height: StatePoint,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ): Promise<CallResult> {
    const native = stateOverrides?.length || blockOverrides ? undefined : this.o.native;
    return this.with(this.open(height, call, stateOverrides, blockOverrides), async (sim) => {
      const gas = sim.callGas(call);
      return (native && (await sim.callNative(native, call, gas))) || sim.call(call, gas);
    });
  }

  /**
   * eth_simulateV1's simulation: the JS EVM only (the native simulator answers single calls), under
   * eth_call's gas cap and deadline for the whole request.
   */
  async openMultiBlock(point: StatePoint): Promise<MultiBlockSimulation> {
    const sim = await this.open(point, {});
    const env = sim.env;
    // the pending block has no hash yet: geth's pending header names none either
    const hash =
      point === 'pending'
        ? new Uint8Array(32)
        : (this.m.reader.blockContext(point)?.hash ?? new Uint8Array(32));
    const hashes = new Map<bigint, Uint8Array>();
    const chainHash = env.blockHash;
    if (point !== 'pending') hashes.set(env.height, hash);
    return {
      base: {
        number: env.height,
        timestamp: env.timestamp,
        hash,
        gasLimit: env.gasLimit,
        baseFee: env.baseFee,
        coinbase: env.coinbase,
        chainId: this.chainId,
      },
      gasCap: this.o.gasCap,
      // BLOCKHASH sees the base block and the simulated blocks before the one running
      startBlock: async (b) => sim.setBlock(b, (n) => hashes.get(n) ?? chainHash(n)),
      setBlockHash: (n, h) => void hashes.set(n, h),
      applyStateOverrides: (o) => sim.applyStateOverrides(o),
      nonceOf: (a) => sim.nonceOf(a),
      execute: (call, gas, opts) => sim.execute(call, gas, opts),
      close: () => sim.close(),
    };
  }

  /** Runs `fn` on a simulation and gives its VM back whatever happens. */
  private async with<T>(created: Promise<Simulation>, fn: (sim: Simulation) => Promise<T>): Promise<T> {
    const sim = await created;
    try {
      return await fn(sim);
    } finally {
      sim.close();
    }
  }

  async estimateGas(
    height: StatePoint,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ) {
    const native = stateOverrides?.length || blockOverrides ? undefined : this.o.native;
    return this.with(this.open(height, call, stateOverrides, blockOverrides), (sim) =>
      estimateGas(sim, call, native),
    );
  }

  async createAccessList(height: StatePoint, call: CallObject) {
    return this.with(this.open(height, call), (sim) => createAccessList(sim, call));
  }
}
