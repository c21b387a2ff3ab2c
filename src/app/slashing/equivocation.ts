/**
 * Double signing: evidence CometBFT committed (a duplicate vote or a light-client attack, both handled
 * as equivocation, as x/evidence does) slashes the validator at the infraction height, jails it for
 * good and tombstones it, so later evidence of the same validator changes nothing.
 */
import type { TxEvent } from '../../storage/blocks/types.ts';
import type { BlockHookContext, Misbehavior } from '../consensus-info.ts';
import type { StakingForSlashing } from '../staking/for-slashing.ts';
import type { StateWriter } from '../state-access.ts';
import { slashingEvent, VALIDATOR_UPDATE_DELAY } from './events.ts';
import type { EvidenceMaxAge, SlashingParams } from './params.ts';
import { consAddressBech32, DOUBLE_SIGN_JAIL_END, SigningInfos } from './signing-info.ts';

const nanos = (t: { seconds: number; nanos: number }) => BigInt(t.seconds) * 1_000_000_000n + BigInt(t.nanos);

export function handleEquivocation(
  state: StateWriter,
  staking: StakingForSlashing,
  params: SlashingParams,
  maxAge: EvidenceMaxAge,
  block: BlockHookContext,
  evidence: Misbehavior,
): TxEvent[] {
  const validator = staking.validatorByConsAddr(evidence.address);
  if (!validator || validator.status === 'BOND_STATUS_UNBONDED') return [];
  // stale only when past both limits, as the SDK (and CometBFT's own evidence pool) decide
  const ageNs = nanos(block.time) - nanos(evidence.time);
  const ageBlocks = block.height - evidence.height;
  if (ageNs > maxAge.durationNs && ageBlocks > maxAge.numBlocks) return [];
  const infos = new SigningInfos(state);
  const info = infos.get(evidence.address);
  if (!info || info.tombstoned) return [];

  const address = consAddressBech32(evidence.address);
  // the stake that signed the infraction's block was decided ValidatorUpdateDelay blocks before it
  const distributionHeight = evidence.height - VALIDATOR_UPDATE_DELAY;
  const burned = staking.slash(
    evidence.address,
    distributionHeight,
    evidence.power,
    params.slashFractionDoubleSign,
  );
  const events = [
    slashingEvent('slash', {
      address,
      power: evidence.power.toString(),
      reason: 'double_sign',
      burned_coins: burned.toString(),
    }),
  ];
  if (!validator.jailed) {
    staking.jail(evidence.address);
    events.push(slashingEvent('slash', { jailed: address }));
  }
  infos.set({ ...info, jailedUntil: DOUBLE_SIGN_JAIL_END, tombstoned: true });
  return events;
}
