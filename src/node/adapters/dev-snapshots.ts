/**
 * rpc/dev's DevSnapshots over a dev chain's parts. A snapshot is what cannot be read back from the
 * stores: the height, the txs in the pool, the block clock and the mining mode. A revert rewinds the
 * chain to that height in process (Chain.rewindTo: every store, and every cache and follower of the
 * heights above it through the rewind listeners) while the producer holds block production, then
 * puts the rest back; a reset is a revert to height 0 with the pool, clock and mining mode of the
 * node's start (docs/adr/0029-dev-chain-methods.md).
 */
import type { Chain } from '../../chain/chain.ts';
import type { DecodedEthTx } from '../../execution/transactions.ts';
import type { CosmosPool } from '../../mempool/cosmos-pool.ts';
import type { Mempool } from '../../mempool/mempool.ts';
import type { BlockClockState } from '../../producer/block-clock.ts';
import type { BlockProducer, MiningMode } from '../../producer/producer.ts';
import type { DevForkRequest, DevSnapshots } from '../../rpc/dev/index.ts';
import { type Fork, type ForkTarget, resolveForkTarget } from '../../fork/fork.ts';
import { ChainError } from '../../util/errors.ts';

interface Snapshot {
  height: number;
  /** The pool's txs, oldest admission first (Cosmos txs are not kept: a revert drops them). */
  txs: DecodedEthTx[];
  clock: BlockClockState;
  mining: MiningMode;
}

export interface DevSnapshotParts {
  producer: BlockProducer;
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  /** After a reset (hardhat_metadata's instanceId changes, as Hardhat's does). */
  onReset?: () => void;
  /** The chain's fork, when it is one (a reset may fork another remote block). */
  fork?: Fork;
}

export function devSnapshots(o: DevSnapshotParts): DevSnapshots {
  const { producer, chain, mempool, cosmosPool } = o;
  // ids only grow, also across reverts and resets (Hardhat's and anvil's rule): an id once deleted
  // never names another snapshot
  const held = new Map<number, Snapshot>();
  let nextId = 1;
  const start: Omit<Snapshot, 'height'> = { txs: [], clock: producer.clock.state(), mining: producer.mining };

  const rewind = (to: Snapshot, atTarget?: () => Promise<void>) =>
    producer.rewind(to.height, async () => {
      await chain.rewindTo(to.height);
      await atTarget?.();
      cosmosPool.clear();
      await mempool.restore(to.txs, chain.latestAccounts, to.height);
      producer.clock.restore(to.clock);
      producer.setMining(to.mining);
    });

  /** The remote block a reset forks: only a forked chain re-forks, and only a chain of its own id. */
  const forkTarget = async (request: DevForkRequest): Promise<ForkTarget> => {
    if (!o.fork)
      throw new ChainError(
        'RPC_INVALID_PARAMS',
        'this dev chain is not a fork, and a reset cannot make it one: start a fork with `chaind dev --fork-url URL`',
      );
    const target = await resolveForkTarget(request.url, request.blockNumber);
    const own = chain.common.chainId().toString();
    if (target.chainId !== own)
      throw new ChainError(
        'RPC_INVALID_PARAMS',
        `${request.url} serves chain id ${target.chainId}, but this fork's is ${own}: a fork of another chain starts with \`chaind dev --fork-url\` on a new home`,
      );
    return target;
  };

  return {
    take: () => {
      const id = nextId++;
      held.set(id, {
        height: chain.latestHeight,
        txs: mempool.txs(),
        clock: producer.clock.state(),
        mining: producer.mining,
      });
      return id;
    },
    revert: async (id) => {
      const snapshot = held.get(id);
      if (!snapshot) return false;
      // deleted before the rewind starts: a revert to a later one meanwhile answers false
      for (const k of held.keys()) if (k >= id) held.delete(k);
      await rewind(snapshot);
      return true;
    },
    reset: async (request) => {
      // the remote is asked before anything changes: a reset it cannot serve changes nothing
      const target = request && (await forkTarget(request));
      held.clear();
      await rewind({ height: 0, ...start }, async () => {
        if (!target) return;
        // at genesis again, before block 1: every value read from the old remote is forgotten
        await o.fork!.retarget({ ...request!, target });
        chain.states.reads.dropAbove(0);
      });
      o.onReset?.();
    },
  };
}
