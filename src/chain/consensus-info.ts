/**
 * What a block knows of consensus (its parent's votes and the evidence it carries) as the block
 * hooks get it, and as a stored block keeps it: a block is replayed with what its engine handed it
 * when it was decided, read back from the block record, so replay passes the hooks the same votes.
 */
import type { ConsensusInfo } from '../app/block-hooks.ts';
import { BlockIdFlag } from '../codec/index.ts';
import { sha256 } from '../crypto/hash.ts';
import { ByteWriter } from '../primitives/byte-io.ts';
import { toHex } from '../primitives/bytes.ts';
import type { Block } from '../storage/blocks/types.ts';

/**
 * The consensus info of a stored (or just built) block: each last-commit signature with its power
 * (0 in a record written before powers were kept) and whether it was cast (a nil vote counts as
 * signed), and the block's misbehavior.
 */
export function consensusInfoOfBlock(
  block: Pick<Block, 'lastCommit' | 'lastCommitPowers' | 'misbehavior'>,
): ConsensusInfo {
  const powers = block.lastCommitPowers ?? [];
  return {
    votes: block.lastCommit.signatures.map((s, i) => ({
      address: s.validatorAddress,
      power: powers[i] ?? 0n,
      signed: s.blockIdFlag !== BlockIdFlag.Absent,
    })),
    misbehavior: (block.misbehavior ?? []).map((m) => ({ ...m, time: { ...m.time } })),
  };
}

/**
 * The fields a block record keeps of `info` (Block.lastCommitPowers, Block.misbehavior), present
 * only when there is something to keep; the votes' addresses and flags are the block's last commit.
 */
export function blockConsensusFields(info: ConsensusInfo): Pick<Block, 'lastCommitPowers' | 'misbehavior'> {
  return {
    ...(info.votes.length > 0 && { lastCommitPowers: info.votes.map((v) => v.power) }),
    ...(info.misbehavior.length > 0 && { misbehavior: info.misbehavior.map((m) => ({ ...m })) }),
  };
}

/** A digest of everything in `info`, for keying an execution by the consensus info it ran with. */
export function consensusDigest(info: ConsensusInfo): string {
  const w = new ByteWriter(64 + info.votes.length * 32 + info.misbehavior.length * 64);
  w.uv(info.votes.length);
  for (const v of info.votes)
    w.bytes(v.address)
      .big(v.power)
      .u8(v.signed ? 1 : 0);
  w.uv(info.misbehavior.length);
  for (const m of info.misbehavior) {
    w.str(m.kind).bytes(m.address).big(m.power).uv(m.height).sv(m.time.seconds).uv(m.time.nanos);
    w.big(m.totalVotingPower);
  }
  return toHex(sha256(w.finish()));
}
