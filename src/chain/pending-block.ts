/**
 * The pending block, as geth's miner keeps one: the latest committed state with the pools' executable
 * transactions applied, in the order a proposer would take them (blockCandidates). Reads and
 * simulations at `pending` run over it, so a contract deployed by a tx still in the pool has code at
 * `pending` and a call to it executes, as with geth, anvil and Hardhat.
 *
 * It is executed on demand, only when a `pending` read asks, and kept while neither the latest height
 * nor the candidates change (the key is the height and the candidates' hashes: the same txs on the
 * same state give the same writes). Nothing of it is stored or committed. It reads State Commit only
 * while SC holds the latest version alone (VersionedState.committedGet); a block committed during its
 * execution makes a read fall outside that, and the run starts again on the new latest state.
 */
import { NO_CONSENSUS_INFO } from '../app/block-hooks.ts';
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import { timestampFromDate } from '../codec/cometbft.ts';
import { readId } from '../execution/version-reads.ts';
import { toHex } from '../primitives/bytes.ts';
import type { StateReader } from '../state/overlay.ts';
import { type BlockPools, blockCandidates } from './block-candidates.ts';
import type { BlockTx } from './block-execution.ts';
import { type Chain, stateVersion } from './chain.ts';

/** What the pending txs change, and the block context they ran in. */
export interface PendingExecution {
  /** The pending block's height: the latest + 1. */
  height: number;
  /** Seconds: now, and never before the latest block. */
  timestamp: bigint;
  /** The base fee the pending block pays (the one stored after the latest block). */
  baseFee: bigint;
  /** Every key the pending txs wrote (undefined: deleted), by readId. */
  writes: ReadonlyMap<string, Uint8Array | undefined>;
  /** Txs the pending block includes. */
  txCount: number;
}

export interface PendingBlock {
  /** The latest height it builds on. */
  parentHeight: number;
  /** undefined: the pools hold nothing executable, so the pending state is the latest state. */
  execution: PendingExecution | undefined;
}

/** `base` with the pending writes on top. */
export function withPendingWrites(
  writes: ReadonlyMap<string, Uint8Array | undefined>,
  base: StateReader,
): StateReader {
  return {
    get: (store, key) => {
      const id = readId(store, key);
      return writes.has(id) ? writes.get(id) : base.get(store, key);
    },
  };
}

/** Runs raced by a commit before giving up and answering with the latest state. */
const MAX_RUNS = 3;

const candidateHash = (c: BlockTx): string => toHex(c.kind === 'eth' ? c.tx.hash : cosmosTxHash(c.tx.raw));

export class PendingBlocks {
  private readonly chain: Chain;
  private readonly pools: BlockPools;
  private readonly now: () => number;
  private cached: { key: string; block: Promise<PendingBlock | undefined> } | undefined;

  constructor(chain: Chain, pools: BlockPools, now: () => number = Date.now) {
    this.chain = chain;
    this.pools = pools;
    this.now = now;
    // after a rewind the same parent height and candidates may meet another state
    chain.onRewind(() => (this.cached = undefined));
  }

  async current(): Promise<PendingBlock> {
    for (let run = 1; ; run++) {
      const parentHeight = this.chain.latestHeight;
      const candidates = blockCandidates(this.pools, this.chain.gasLimit);
      if (candidates.length === 0) return { parentHeight, execution: undefined };
      const key = `${parentHeight}:${candidates.map(candidateHash).join(',')}`;
      let cached = this.cached;
      if (cached?.key !== key) {
        const block = this.execute(parentHeight, candidates);
        cached = this.cached = { key, block };
        // a failed run is not kept: the next read tries again
        block.catch(() => {
          if (this.cached?.key === key) this.cached = undefined;
        });
      }
      const block = await cached.block;
      if (block && this.chain.latestHeight === parentHeight) return block;
      if (this.cached?.key === key) this.cached = undefined;
      if (run >= MAX_RUNS) return { parentHeight: this.chain.latestHeight, execution: undefined };
    }
  }

  /** undefined: a commit raced the run. */
  private async execute(parentHeight: number, candidates: BlockTx[]): Promise<PendingBlock | undefined> {
    const chain = this.chain;
    const version = stateVersion(parentHeight);
    let raced = false;
    const state: StateReader = {
      get: (store, key) => {
        const read = chain.states.committedGet(store, key, version);
        if (read) return read.value;
        // SC has moved on: this run is void
        raced = true;
        return undefined;
      },
      stable: true,
    };
    const parentTime = chain.blocks.headerByHeight(parentHeight)?.header.time;
    const nowMs = this.now();
    const ms = parentTime ? Math.max(nowMs, parentTime.seconds * 1000) : nowMs;
    const header = {
      height: parentHeight + 1,
      time: timestampFromDate(new Date(ms)),
      appHash: chain.appHash,
      // no votes yet: the pending block is no block any engine decided
      consensus: NO_CONSENSUS_INFO,
    };
    let executed;
    try {
      executed = await chain.execute(header, candidates, 'propose', { state });
    } catch (err) {
      // a run on reads that no longer hold may fail in any way: it is void, not an error
      if (raced) return undefined;
      throw err;
    }
    if (raced) return undefined;
    const writes = new Map<string, Uint8Array | undefined>();
    for (const { store, writes: list } of executed.overlay.changes())
      for (const w of list) writes.set(readId(store, w.key), w.value);
    return {
      parentHeight,
      execution: {
        height: parentHeight + 1,
        timestamp: BigInt(header.time.seconds),
        baseFee: executed.baseFee,
        writes,
        txCount: executed.txs.length,
      },
    };
  }
}
