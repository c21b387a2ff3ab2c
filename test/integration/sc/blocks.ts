/** Deterministic blocks for the crash tests: the child commits them, the parent recomputes them. */
import { rng } from '../../unit/storage/sc/helpers.ts';
import type { ChangeSet } from '../../../src/storage/sc/types.ts';

export const STORES = ['acc', 'bank', 'evm', 'staking'];

export function* blocks(seed: number, perStore: number): Generator<ChangeSet[]> {
  const r = rng(seed);
  const bytes = (n: number): Uint8Array => {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
    return b;
  };
  for (;;) {
    const out: ChangeSet[] = [];
    for (const store of STORES) {
      const pairs = [];
      for (let i = 0; i < perStore; i++) {
        // evm keys: storage slots (0x03 ‖ addr ‖ slot) so flatkv uses its storage table
        const key = store === 'evm' ? new Uint8Array([0x03, ...bytes(52)]) : bytes(24);
        pairs.push({ key, value: bytes(32) });
      }
      out.push({ store, pairs });
    }
    yield out;
  }
}
