/**
 * The simulation and proof interfaces rpc/evm declares (SimulationBackend, ProofReader), over the
 * node's modules: execution/simulate for eth_call, eth_estimateGas and eth_createAccessList, State
 * Commit for eth_getProof.
 *
 * Simulations read the state after the requested block h at version h + 1. The latest state is read
 * from State Commit (synchronous, in memory) while that is provably version h + 1: SC is at it and
 * block h + 1 is not in the block store yet — the pipeline stores a block before it touches SC, so a
 * commit of h + 1 cannot be under way. Otherwise (an older height, or once the next block is being
 * committed, which a long call that yields can outlive) reads go to the State Store at h + 1, whose
 * versions never change; both give the same bytes, so one call may mix them.
 */
import { FEE_COLLECTOR_ADDRESS } from '../app/evm.ts';
import { evmKeys, STORES } from '../app/store-keys.ts';
import type { Chain } from '../chain/chain.ts';
import { stateVersion } from '../chain/chain.ts';
import type { BlockEnv } from '../execution/block-executor.ts';
import { createAccessList, estimateGas } from '../execution/simulate-estimate.ts';
import { Simulation, SimulationError } from '../execution/simulate.ts';
import type { VersionReadCaches } from '../execution/version-reads.ts';
import type { AccountOverride, BlockOverrides } from '../rpc/codecs/overrides.ts';
import type { CallObject } from '../rpc/codecs/call.ts';
import type { ChainReader } from '../rpc/evm/backend.ts';
import type { ProofReader, SlotProof } from '../rpc/evm/proof.ts';
import type { CallResult, SimulationBackend } from '../rpc/evm/simulate.ts';
import type { BlockStore } from '../storage/blocks/store.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import { ProofUnsupportedError } from '../storage/sc/errors.ts';
import type { StateStore } from '../storage/ss/types.ts';
import { ChainError } from '../util/errors.ts';
import { stateSource, versionReads } from './rpc-state-reads.ts';

export interface SimulationDeps {
  chain: Chain;
  blocks: BlockStore;
  ss: StateStore;
  /** State Commit, for reads of the latest state (see the file comment); absent: SS only. */
  sc?: CommitStore;
  /** The eth_ block views (for the requested block's time and base fee). */
  reader: ChainReader;
  /** `[evm] simulation_gas_limit` */
  gasCap: bigint;
  /** `[evm] simulation_evm_timeout`, ms */
  timeoutMs: number;
}

export class NodeSimulation implements SimulationBackend {
  private readonly d: SimulationDeps;
  /** Reads kept per version, shared with the chain's other RPC state reads (rpc-state-reads.ts). */
  private readonly reads: VersionReadCaches;
  private readonly source: ReturnType<typeof stateSource>;
  /** Common.chainId() converts on every call */
  private readonly chainId: bigint;
  constructor(d: SimulationDeps) {
    this.d = d;
    this.chainId = d.chain.common.chainId();
    this.reads = versionReads(d.chain);
    this.source = stateSource(d);
  }

  /** The block context of `height` (geth runs a call "in" the requested block). */
  private async env(height: number): Promise<BlockEnv> {
    const view = await this.d.reader.block(height);
    if (!view) throw new ChainError('RPC_BLOCK_MISSING', `block ${height} is not available`);
    return {
      height: BigInt(height),
      timestamp: BigInt(view.timestamp),
      gasLimit: this.d.chain.gasLimit,
      baseFee: view.baseFeePerGas,
      coinbase: FEE_COLLECTOR_ADDRESS,
      parentAppHash: view.stateRoot,
      blockHash: (n) =>
        n >= 1n && n < BigInt(height) ? this.d.blocks.blockHashByHeight(Number(n)) : undefined,
    };
  }

  /** A simulation on the state after `height`; the caller must `close()` it (debug_traceCall uses it too). */
  async open(
    height: number,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
    timeoutMs = this.d.timeoutMs,
  ): Promise<Simulation> {
    const chainId = this.chainId;
    if (call.chainId !== undefined && call.chainId !== chainId) {
      throw new SimulationError(
        'invalid',
        `chainId does not match node's (have=${call.chainId}, want=${chainId})`,
      );
    }
    const version = stateVersion(height);
    return Simulation.create({
      common: this.d.chain.common,
      env: await this.env(height),
      state: (store, key) => this.source(store, key, version),
      gasCap: this.d.gasCap,
      timeoutMs,
      stateOverrides,
      blockOverrides,
      readCache: this.reads.at(version),
    });
  }

  async call(
    height: number,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ): Promise<CallResult> {
    return this.with(this.open(height, call, stateOverrides, blockOverrides), (sim) =>
      sim.call(call, sim.callGas(call)),
    );
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
    height: number,
    call: CallObject,
    stateOverrides?: AccountOverride[],
    blockOverrides?: BlockOverrides,
  ) {
    return this.with(this.open(height, call, stateOverrides, blockOverrides), (sim) =>
      estimateGas(sim, call),
    );
  }

  async createAccessList(height: number, call: CallObject) {
    return this.with(this.open(height, call), (sim) => createAccessList(sim, call));
  }
}

/** Proofs of `evm` store slots from State Commit (IAVL chains only). */
export class NodeProofs implements ProofReader {
  private readonly sc: CommitStore;
  constructor(sc: CommitStore) {
    this.sc = sc;
  }

  async storageProofs(height: number, address: Uint8Array, slots: Uint8Array[]): Promise<SlotProof[]> {
    if (this.sc.stateCommitment !== 'iavl') throw new ProofUnsupportedError(STORES.evm);
    const out: SlotProof[] = [];
    for (const slot of slots) {
      try {
        const p = await this.sc.getProof(STORES.evm, evmKeys.storage(address, slot), stateVersion(height));
        out.push({ value: p.value, proofOps: p.proofOps });
      } catch (err) {
        if (err instanceof ChainError && err.code === 'SC_VERSION_UNAVAILABLE') {
          // heights, not SC versions (version = height + 1), in what the caller reads
          throw new ChainError(
            'PROOF_HEIGHT_UNAVAILABLE',
            `proofs at height ${height} are not available: State Commit no longer holds that state; it keeps the most recent heights and rebuilds older ones only from its snapshots, the oldest of which is at height ${this.sc.oldestVersion() - 1}`,
          );
        }
        throw err;
      }
    }
    return out;
  }
}

/** The simulation and proof services of the eth_ table, configured from `[evm]`. */
export function simulationServices(
  d: Omit<SimulationDeps, 'reader' | 'gasCap' | 'timeoutMs'> & {
    sc?: CommitStore;
    evm: { simulationGasLimit: number; simulationEvmTimeout: number };
  },
  reader: ChainReader,
): { simulation: SimulationBackend; proofs?: ProofReader } {
  return {
    simulation: new NodeSimulation({
      ...d,
      reader,
      gasCap: BigInt(d.evm.simulationGasLimit),
      timeoutMs: d.evm.simulationEvmTimeout,
    }),
    ...(d.sc ? { proofs: new NodeProofs(d.sc) } : {}),
  };
}
