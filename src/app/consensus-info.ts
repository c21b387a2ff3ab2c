/**
 * What a block knows of consensus, as the block hooks receive it: its height and time, the votes of
 * its last commit and the evidence it carries.
 */

/** One vote of the block's last commit, as CometBFT's VoteInfo carries it. */
export interface VoteInfo {
  /** 20-byte consensus address. */
  address: Uint8Array;
  /** The validator's voting power in the set that signed the previous block. */
  power: bigint;
  /** False when the vote is absent (BlockIDFlagAbsent); a nil vote counts as signed, as in the SDK. */
  signed: boolean;
}

/** Evidence CometBFT committed in the block (ABCI Misbehavior). */
export interface Misbehavior {
  kind: 'duplicate_vote' | 'light_client_attack';
  /** 20-byte consensus address. */
  address: Uint8Array;
  /** Its power at the infraction. */
  power: bigint;
  /** The infraction's height and time. */
  height: number;
  time: { seconds: number; nanos: number };
  totalVotingPower: bigint;
}

/** What a block knows of consensus: the votes for its parent and the evidence it carries. */
export interface ConsensusInfo {
  votes: VoteInfo[];
  misbehavior: Misbehavior[];
}

export const NO_CONSENSUS_INFO: ConsensusInfo = { votes: [], misbehavior: [] };

export interface BlockHookContext {
  height: number;
  time: { seconds: number; nanos: number };
}
