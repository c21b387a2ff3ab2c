/**
 * Executions of the next block kept until it is committed, so a block is executed once per node:
 * in network mode the proposer's PrepareProposal and every validator's ProcessProposal execute a
 * block that FinalizeBlock then takes from here. An execution is keyed by everything that determines
 * it on a given parent state: the height, the block time (the EVM's TIMESTAMP is its seconds; the
 * block hooks see the nanoseconds too), the txs and the consensus info the block hooks got (the votes
 * for the parent and the misbehavior: a FinalizeBlock whose votes differ from its ProcessProposal's
 * runs again). The proposer does not enter execution: fees go to the fee collector. Cleared by each
 * commit, since a kept execution is valid only on the state it ran on.
 */
import { sha256 } from '../crypto/hash.ts';
import { concatBytes, toHex } from '../primitives/bytes.ts';
import type { ConsensusInfo } from '../app/block-hooks.ts';
import type { ExecutedBlock } from './block-execution.ts';
import { consensusDigest } from './consensus-info.ts';

/** A few rounds' proposals at one height. */
const MAX_KEPT = 8;

/** What determines a block's execution on a given parent state. */
export interface ExecutionSlot {
  height: number;
  time: { seconds: number; nanos: number };
  txs: Uint8Array[];
  consensus: ConsensusInfo;
}

export class KeptExecutions {
  private readonly kept = new Map<string, ExecutedBlock>();

  get(slot: ExecutionSlot): ExecutedBlock | undefined {
    return this.kept.get(keyOf(slot));
  }

  keep(slot: ExecutionSlot, executed: ExecutedBlock): void {
    if (this.kept.size >= MAX_KEPT) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
    this.kept.set(keyOf(slot), executed);
  }

  clear(): void {
    this.kept.clear();
  }

  get size(): number {
    return this.kept.size;
  }
}

function keyOf({ height, time, txs, consensus }: ExecutionSlot): string {
  const digest = sha256(concatBytes(...txs.map((tx) => sha256(tx))));
  return `${height}:${time.seconds}.${time.nanos}:${toHex(digest)}:${consensusDigest(consensus)}`;
}
