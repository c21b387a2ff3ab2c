/**
 * Commits and votes: the last-commit hash (Merkle root of each CommitSig's protobuf bytes, CometBFT
 * `Commit.Hash()`) and the canonical sign bytes of a vote (CometBFT `VoteSignBytes`: the
 * length-delimited `CanonicalVote`), which validators sign with Ed25519.
 */
import { assertTimestamp, encodeTimestamp, isZeroBlockId, type BlockID, type Timestamp } from './cometbft.ts';
import { CodecError } from './errors.ts';
import { merkleRoot } from './merkle.ts';
import { lengthDelimited, ProtoWriter } from './proto.ts';

/** tendermint.types.BlockIDFlag */
export const BlockIdFlag = { Absent: 1, Commit: 2, Nil: 3 } as const;
export type BlockIdFlag = (typeof BlockIdFlag)[keyof typeof BlockIdFlag];

/** tendermint.types.SignedMsgType */
export const SignedMsgType = { Prevote: 1, Precommit: 2, Proposal: 32 } as const;
export type SignedMsgType = (typeof SignedMsgType)[keyof typeof SignedMsgType];

export interface CommitSig {
  blockIdFlag: BlockIdFlag;
  /** 20 bytes; empty for an absent signature. */
  validatorAddress: Uint8Array;
  /** Go's zero time (`GO_ZERO_TIME`) for an absent signature. */
  timestamp: Timestamp;
  /** 64-byte Ed25519 signature; empty for an absent signature. */
  signature: Uint8Array;
}

export interface Commit {
  height: number;
  round: number;
  blockId: BlockID;
  signatures: CommitSig[];
}

/** tendermint.types.CommitSig; its timestamp is non-nullable (gogo), so always written. */
export function encodeCommitSig(sig: CommitSig): Uint8Array {
  return new ProtoWriter()
    .varint(1, sig.blockIdFlag)
    .bytes(2, sig.validatorAddress)
    .message(3, encodeTimestamp(sig.timestamp))
    .bytes(4, sig.signature)
    .finish();
}

/** `last_commit_hash`; an empty commit (the first block's) hashes to SHA-256 of nothing. */
export function commitHash(signatures: CommitSig[]): Uint8Array {
  return merkleRoot(signatures.map(encodeCommitSig));
}

export interface VoteToSign {
  type: SignedMsgType;
  height: number;
  round: number;
  /** A zero BlockID (a vote for nil) is left out of the canonical form, as CometBFT does. */
  blockId: BlockID;
  timestamp: Timestamp;
}

/** tendermint.types.CanonicalBlockID (its part set header is non-nullable). */
function encodeCanonicalBlockId(id: BlockID): Uint8Array {
  const psh = new ProtoWriter().varint(1, id.partSetHeader.total).bytes(2, id.partSetHeader.hash).finish();
  return new ProtoWriter().bytes(1, id.hash).message(2, psh).finish();
}

/**
 * The bytes a validator signs for a vote: `uvarint(len) ‖ CanonicalVote`, where CanonicalVote is
 * {type, height sfixed64, round sfixed64, block_id (nullable), timestamp (non-nullable), chain_id}.
 */
export function voteSignBytes(chainId: string, vote: VoteToSign): Uint8Array {
  if (!Number.isSafeInteger(vote.height) || vote.height < 0)
    throw new CodecError(`vote height ${vote.height} invalid`);
  if (!Number.isSafeInteger(vote.round) || vote.round < 0)
    throw new CodecError(`vote round ${vote.round} invalid`);
  assertTimestamp(vote.timestamp, 'vote timestamp');
  const w = new ProtoWriter().varint(1, vote.type).sfixed64(2, vote.height).sfixed64(3, vote.round);
  if (!isZeroBlockId(vote.blockId)) w.message(4, encodeCanonicalBlockId(vote.blockId));
  w.message(5, encodeTimestamp(vote.timestamp)).string(6, chainId);
  return lengthDelimited(w.finish());
}

/** Sign bytes of a precommit for `blockId` (what the single validator signs to commit a block). */
export function precommitSignBytes(
  chainId: string,
  height: number,
  round: number,
  blockId: BlockID,
  timestamp: Timestamp,
): Uint8Array {
  return voteSignBytes(chainId, { type: SignedMsgType.Precommit, height, round, blockId, timestamp });
}
