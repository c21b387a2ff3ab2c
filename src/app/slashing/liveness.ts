/**
 * Downtime: one vote of the block's last commit updates its validator's missed-blocks window, and a
 * validator that missed too many blocks of a full window is slashed and jailed (the SDK's
 * HandleValidatorSignature, with the window position derived from the start height).
 */
import type { TxEvent } from '../../storage/blocks/types.ts';
import type { BlockHookContext, VoteInfo } from '../consensus-info.ts';
import { decMulInt, decRoundInt } from '../staking/dec.ts';
import type { StakingForSlashing } from '../staking/for-slashing.ts';
import type { StateWriter } from '../state-access.ts';
import { slashingEvent, VALIDATOR_UPDATE_DELAY } from './events.ts';
import type { SlashingParams } from './params.ts';
import { consAddressBech32, SigningInfos } from './signing-info.ts';

/** The most blocks of a window a validator may miss: window − round(min_signed × window), as the SDK. */
export function maxMissedPerWindow(p: SlashingParams): number {
  const minSigned = decRoundInt(decMulInt(p.minSignedPerWindow, BigInt(p.signedBlocksWindow)));
  return p.signedBlocksWindow - Number(minSigned);
}

export function handleVote(
  state: StateWriter,
  staking: StakingForSlashing,
  params: SlashingParams,
  block: BlockHookContext,
  vote: VoteInfo,
): TxEvent[] {
  const validator = staking.validatorByConsAddr(vote.address);
  // a jailed validator's window stands still; it starts again when the validator bonds again
  if (!validator || validator.jailed) return [];
  const infos = new SigningInfos(state);
  const info = infos.get(vote.address);
  if (!info) return [];
  const window = params.signedBlocksWindow;
  const position = (((block.height - info.startHeight) % window) + window) % window;
  const previous = infos.missed(vote.address, position);
  const missed = !vote.signed;
  let changed = false;
  if (missed !== previous) {
    infos.setMissed(vote.address, position, missed, window);
    info.missedBlocksCounter += missed ? 1 : -1;
    changed = true;
  }
  const address = consAddressBech32(vote.address);
  const events: TxEvent[] = [];
  if (missed)
    events.push(
      slashingEvent('liveness', {
        address,
        missed_blocks: String(info.missedBlocksCounter),
        height: String(block.height),
      }),
    );
  if (block.height > info.startHeight + window && info.missedBlocksCounter > maxMissedPerWindow(params)) {
    // the power that signed the block before last: the set of the block the votes are for
    const distributionHeight = block.height - VALIDATOR_UPDATE_DELAY - 1;
    const burned = staking.slash(vote.address, distributionHeight, vote.power, params.slashFractionDowntime);
    events.push(
      slashingEvent('slash', {
        address,
        power: vote.power.toString(),
        reason: 'missing_signature',
        jailed: address,
        burned_coins: burned.toString(),
      }),
    );
    staking.jail(vote.address);
    info.jailedUntil = { seconds: block.time.seconds + params.downtimeJailSeconds, nanos: block.time.nanos };
    info.missedBlocksCounter = 0;
    infos.clearMissed(vote.address);
    changed = true;
  }
  if (changed) infos.set(info);
  return events;
}
