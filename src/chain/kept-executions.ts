/**
 * Executions of the next block kept until it is committed, so a block is executed once per node:
 * in network mode the proposer's PrepareProposal and every validator's ProcessProposal execute a
 * block that FinalizeBlock then takes from here. An execution is keyed by everything that determines
 * it on a given parent state: the height, the block time (seconds: the EVM's TIMESTAMP) and the txs
 * (the proposer does not enter execution: fees go to the fee collector). Cleared by each commit, since
 * a kept execution is valid only on the state it ran on.
 */
import { sha256 } from '../crypto/hash.ts';
import { concatBytes, toHex } from '../primitives/bytes.ts';
import type { ExecutedBlock } from './block-execution.ts';

/** A few rounds' proposals at one height. */
const MAX_KEPT = 8;

/** What determines a block's execution on a given parent state. */
export interface ExecutionSlot {
  height: number;
  /** The block time's whole seconds (the EVM's TIMESTAMP); nanoseconds do not enter execution. */
  seconds: number;
  txs: Uint8Array[];
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

function keyOf({ height, seconds, txs }: ExecutionSlot): string {
  const digest = sha256(concatBytes(...txs.map((tx) => sha256(tx))));
  return `${height}:${seconds}:${toHex(digest)}`;
}
