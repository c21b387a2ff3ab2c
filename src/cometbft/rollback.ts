/**
 * Network mode's rollback of CometBFT's side: `cometbft rollback --hard` rewinds CometBFT's state and
 * block store by one height at a time, so it runs until CometBFT stands where the application was
 * rolled back to. The application goes first (it checks everything before changing anything); if
 * this part is interrupted, CometBFT stands above the application and its handshake replays the
 * difference at the next start, so running the rollback again is always safe.
 *
 * priv_validator_state.json is left as it is: the validator will not sign again at or below the
 * heights it already signed, which is CometBFT's own protection against double signing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChainError } from '../util/errors.ts';

/** Rewinds CometBFT to `height`; returns how many heights it removed. Nothing to do without a CometBFT home. */
export function rollbackCometTo(binary: string, cometHome: string, height: number): number {
  if (!existsSync(join(cometHome, 'config', 'config.toml'))) return 0;
  let removed = 0;
  for (;;) {
    const r = spawnSync(binary, ['rollback', '--hard', '--home', cometHome], { encoding: 'utf8' });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    const done = /Rolled back both state and block to height (\d+)/.exec(out);
    if (r.status !== 0 || !done) {
      // CometBFT refuses when it has nothing below its latest height left to roll back to
      if (
        /height .* is not within the range|no block|nothing to roll back|state is empty/i.test(out) &&
        removed > 0
      )
        return removed;
      throw new ChainError('ROLLBACK_FAILED', `cometbft rollback failed at ${cometHome}: ${out.trim()}`);
    }
    removed++;
    const now = Number(done[1]);
    if (now <= height) return removed;
  }
}
