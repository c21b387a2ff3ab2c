/** The deterministic block stream of the crash test: change set N depends only on N. */
import type { StoreChange } from '../../../src/storage/ss/types.ts';
import type { StateStoreOptions } from '../../../src/storage/ss/options.ts';
import { prng } from '../../unit/storage/ss/helpers.ts';

export const STORES = ['acc', 'bank', 'evm'];
const EVM_PREFIXES = [0x03, 0x07, 0x08, 0x0a, 0x01];

export function keysOf(store: string): Uint8Array[] {
  return Array.from({ length: 30 }, (_, i) =>
    store === 'evm' ? Uint8Array.of(EVM_PREFIXES[i % EVM_PREFIXES.length], i, 0) : Uint8Array.of(i, 0, i),
  );
}

export function changeSet(version: number): StoreChange[] {
  const rand = prng(version * 2654435761);
  const changes: StoreChange[] = [];
  for (let i = 0; i < 40; i++) {
    const store = STORES[Math.floor(rand() * STORES.length)];
    const keys = keysOf(store);
    const key = keys[Math.floor(rand() * keys.length)];
    // Values are big enough that a version's batch spans several pages.
    const value = rand() < 0.2 ? null : new Uint8Array(200).fill(version & 0xff).fill(i, 0, 1);
    changes.push({ store, key, value });
  }
  return changes;
}

export function crashOptions(dataDir: string, asyncWriteBuffer: number): StateStoreOptions {
  return {
    dataDir,
    backend: 'pebbledb',
    asyncWriteBuffer,
    keepRecent: 0,
    evmSplit: true,
    evmSeparateDbs: true,
    sync: false, // SIGKILL, not power loss: the OS page cache survives, so fsync is not what is tested
  };
}

/** Versions between automatic prunes in the child: a kill may land mid-prune. */
export const PRUNE_EVERY = 40;
export const KEEP = 25;
