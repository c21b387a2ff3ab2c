/**
 * Slashing's part of the start of a block: every vote of the last commit updates its validator's
 * window (downtime jailing), then every piece of evidence is handled as equivocation.
 */
import type { TxEvent } from '../../storage/blocks/types.ts';
import type { BlockHookContext, ConsensusInfo } from '../consensus-info.ts';
import type { StakingForSlashing } from '../staking/for-slashing.ts';
import type { StateWriter } from '../state-access.ts';
import { handleEquivocation } from './equivocation.ts';
import { handleVote } from './liveness.ts';
import { readEvidenceMaxAge, readSlashingParams } from './params.ts';

export function slashingBeginBlock(
  state: StateWriter,
  block: BlockHookContext,
  consensus: ConsensusInfo,
  staking: () => StakingForSlashing,
): TxEvent[] {
  if (consensus.votes.length === 0 && consensus.misbehavior.length === 0) return [];
  const params = readSlashingParams(state);
  const sk = staking();
  const events: TxEvent[] = [];
  for (const vote of consensus.votes) events.push(...handleVote(state, sk, params, block, vote));
  if (consensus.misbehavior.length > 0) {
    const maxAge = readEvidenceMaxAge(state);
    for (const m of consensus.misbehavior)
      events.push(...handleEquivocation(state, sk, params, maxAge, block, m));
  }
  return events;
}
