/**
 * The two points every block passes through, whichever engine decided it and in replay alike:
 * `beginBlock` before its first tx (slashing reads the block's votes and misbehavior) and `endBlock`
 * after its last (staking completes matured unbondings and recomputes the bonded set). Both write
 * into the block's overlay, so their changes are part of the block's change set and app hash
 * (docs/adr/0038-staking-slashing-and-validator-updates.md).
 */
import type { TxEvent } from '../storage/blocks/types.ts';
import type { BlockHookContext, ConsensusInfo } from './consensus-info.ts';
import { afterValidatorBonded } from './slashing/bonded.ts';
import { slashingBeginBlock } from './slashing/begin-block.ts';
import { timeNs } from './staking/time.ts';
import { stakingForSlashing } from './staking/for-slashing.ts';
import type { StateWriter } from './state-access.ts';
import { stakingEndBlock } from './staking/end-block.ts';

export {
  type BlockHookContext,
  type ConsensusInfo,
  type Misbehavior,
  NO_CONSENSUS_INFO,
  type VoteInfo,
} from './consensus-info.ts';

/** A change of CometBFT's validator set (ABCI ValidatorUpdate): power 0 removes the validator. */
export interface ValidatorUpdate {
  /** Ed25519 public key, 32 bytes. */
  pubKey: Uint8Array;
  power: bigint;
}

/** Before the block's first tx. Returns the events it emitted (FinalizeBlock's block events). */
export function beginBlock(state: StateWriter, block: BlockHookContext, consensus: ConsensusInfo): TxEvent[] {
  return slashingBeginBlock(state, block, consensus, () =>
    stakingForSlashing(state, block.height, timeNs(block.time)),
  );
}

/** After the block's last tx: the validator updates for CometBFT and the events emitted. */
export function endBlock(
  state: StateWriter,
  block: BlockHookContext,
): { validatorUpdates: ValidatorUpdate[]; events: TxEvent[] } {
  // slashing starts counting a validator's signatures when it enters the bonded set
  return stakingEndBlock(state, block, (consAddress) =>
    afterValidatorBonded(state, consAddress, block.height),
  );
}
