/**
 * ABCI's view of consensus ↔ the block hooks': the votes and misbehavior PrepareProposal,
 * ProcessProposal and FinalizeBlock carry become the ConsensusInfo a block executes with, and
 * endBlock's validator updates become FinalizeBlock's `validator_updates`. PrepareProposal's
 * local last commit and FinalizeBlock's decided one are the same votes, so one conversion serves
 * all three and the execution kept from a proposal matches its FinalizeBlock.
 */
import {
  type Misbehavior as AbciMisbehavior,
  MisbehaviorType,
  type ValidatorUpdate as AbciValidatorUpdate,
} from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { ConsensusInfo, Misbehavior, ValidatorUpdate } from '../app/block-hooks.ts';
import { ChainError } from '../util/errors.ts';

/** A vote as every ABCI commit info carries it (VoteInfo, ExtendedVoteInfo). */
interface AbciVote {
  validator?: { address: Uint8Array; power: bigint };
  blockIdFlag: BlockIDFlag;
}

const EMPTY = new Uint8Array(0);

/** The consensus info of a block from its request's last commit votes and misbehavior. */
export function consensusInfoFromAbci(
  commit: { votes: AbciVote[] } | undefined,
  misbehavior: AbciMisbehavior[] | undefined,
): ConsensusInfo {
  return {
    votes: (commit?.votes ?? []).map((v) => ({
      address: v.validator?.address ?? EMPTY,
      power: v.validator?.power ?? 0n,
      // a nil vote counts as signed, as in the SDK
      signed: v.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_ABSENT,
    })),
    misbehavior: (misbehavior ?? []).map(misbehaviorFromAbci),
  };
}

function misbehaviorFromAbci(m: AbciMisbehavior, i: number): Misbehavior {
  let kind: Misbehavior['kind'];
  if (m.type === MisbehaviorType.DUPLICATE_VOTE) kind = 'duplicate_vote';
  else if (m.type === MisbehaviorType.LIGHT_CLIENT_ATTACK) kind = 'light_client_attack';
  else throw new ChainError('BAD_BLOCK', `misbehavior ${i} has an unknown type ${m.type}`);
  return {
    kind,
    address: m.validator?.address ?? EMPTY,
    power: m.validator?.power ?? 0n,
    height: Number(m.height),
    time: { seconds: Number(m.time?.seconds ?? 0n), nanos: m.time?.nanos ?? 0 },
    totalVotingPower: m.totalVotingPower,
  };
}

/** endBlock's validator updates as FinalizeBlock answers them: Ed25519 keys. */
export function abciValidatorUpdates(updates: ValidatorUpdate[]): AbciValidatorUpdate[] {
  return updates.map((u) => ({ pubKey: { ed25519: u.pubKey }, power: u.power }));
}
