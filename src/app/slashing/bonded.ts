/**
 * The signing info of a validator entering the bonded set (the SDK's AfterValidatorBonded hook):
 * its window starts at `height`, empty, because the window position is derived from the start height
 * and bits of an earlier bonding would sit at the wrong positions. Staking's end of block calls it;
 * genesis calls it at height 0 for the genesis validators.
 */
import type { StateWriter } from '../state-access.ts';
import { NEVER_JAILED, SigningInfos } from './signing-info.ts';

export function afterValidatorBonded(state: StateWriter, consAddress: Uint8Array, height: number): void {
  const infos = new SigningInfos(state);
  const info = infos.get(consAddress) ?? {
    consAddress,
    startHeight: height,
    jailedUntil: NEVER_JAILED,
    tombstoned: false,
    missedBlocksCounter: 0,
  };
  infos.clearMissed(consAddress);
  infos.set({ ...info, startHeight: height, missedBlocksCounter: 0 });
}
