/**
 * What a proposer puts in a block and what it does with the pools once the block is committed: the
 * same for the embedded producer and for network mode's PrepareProposal/Commit, so both engines build
 * and settle blocks alike.
 */
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { AccountReader } from '../mempool/types.ts';
import { toHex } from '../primitives/bytes.ts';
import type { BlockTx, ExecutedBlock } from './block-execution.ts';
import type { CommittedBlock } from './chain.ts';

export interface BlockPools {
  mempool: Mempool;
  cosmosPool: CosmosPool;
}

/** Ethereum txs by fee priority first, then Cosmos txs in arrival order with the gas left. */
export function blockCandidates(pools: BlockPools, gasLimit: bigint): BlockTx[] {
  const eth = pools.mempool.reap(gasLimit);
  const ethGas = eth.reduce((s, tx) => s + tx.gasLimit, 0n);
  return [
    ...eth.map((tx) => ({ kind: 'eth' as const, tx })),
    ...pools.cosmosPool.reap(gasLimit - ethGas).map((tx) => ({ kind: 'cosmos' as const, tx })),
  ];
}

/**
 * A candidate the block could not take would be reaped again every block: it leaves both pools (and
 * stays remembered as invalid, so the same bytes are refused if resubmitted while cached).
 */
export function dropRejected(
  pools: BlockPools,
  executed: ExecutedBlock,
  onDrop?: (hash: Uint8Array, reason: string) => void,
): void {
  for (const r of executed.rejected) {
    onDrop?.(r.hash, r.reason);
    pools.mempool.remove(r.hash, true);
    pools.cosmosPool.remove(r.hash);
  }
}

/**
 * After a block is committed: its txs leave both pools (the EVM pool re-reads the senders' nonces and
 * balances), and both pools' TTLs apply. Left in, committed Cosmos txs would count as unconfirmed and
 * wake a producer for a block that could only reject them.
 */
export async function settleCommitted(
  pools: BlockPools,
  height: number,
  executed: ExecutedBlock,
  accounts: AccountReader,
): Promise<void> {
  await pools.mempool.update(
    height,
    executed.receipts.map((r) => r.txHash),
    accounts,
  );
  pools.cosmosPool.update(
    height,
    executed.cosmosResults.map((r) => cosmosTxHash(executed.txs[r.index])),
  );
}

/** The fields of the `committed block` log line both engines write. */
export function committedBlockFields(c: CommittedBlock): Record<string, unknown> {
  return {
    height: c.block.header.height,
    txs: c.block.txs.length,
    gas_used: c.executed.gasUsed.toString(),
    app_hash: toHex(c.appHash).toUpperCase(),
    hash: toHex(c.block.hash).toUpperCase(),
  };
}
