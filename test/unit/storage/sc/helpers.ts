/** Seeded random change sets and an in-memory reference model for State Commit tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toHex } from '../../../../src/primitives/bytes.ts';
import type { ChangeSet } from '../../../../src/storage/sc/types.ts';
import type { CommitStore } from '../../../../src/storage/sc/commit-store.ts';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import type { KVStore } from '../../../../src/storage/kv/types.ts';

export { seededRandom as rng } from '../../../helpers/random.ts';

export function randomBytes(r: () => number, min: number, max: number): Uint8Array {
  const n = min + Math.floor(r() * (max - min + 1));
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 256);
  return out;
}

/** Reference state: store -> hex key -> value. */
export type Model = Map<string, Map<string, Uint8Array>>;

export function cloneModel(m: Model): Model {
  return new Map([...m].map(([s, kv]) => [s, new Map(kv)]));
}

/**
 * A block of random writes: new keys, overwrites and deletes of existing keys (and deletes of absent
 * keys). Keys come from a small space so that overwrites and deletes are frequent.
 */
export function randomBlock(
  r: () => number,
  model: Model,
  stores: string[],
  maxPerStore: number,
  keySpace = 400,
): ChangeSet[] {
  const out: ChangeSet[] = [];
  for (const store of stores) {
    if (r() < 0.2) continue;
    const kv = model.get(store) ?? new Map();
    model.set(store, kv);
    const n = 1 + Math.floor(r() * maxPerStore);
    const seen = new Set<string>();
    const pairs = [];
    for (let i = 0; i < n; i++) {
      const key = new Uint8Array([Math.floor(r() * 4), ...randomBytes(r, 1, 3)]);
      key[1] = Math.floor(r() * keySpace) % 256;
      const hex = toHex(key);
      if (seen.has(hex)) continue; // one write per key per block, like a block's change set
      seen.add(hex);
      if (r() < 0.3) {
        pairs.push({ key, value: undefined });
        kv.delete(hex);
      } else {
        const value = randomBytes(r, 1, 40);
        pairs.push({ key, value });
        kv.set(hex, value);
      }
    }
    out.push({ store, pairs });
  }
  return out;
}

export function tempDir(prefix = 'sc-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A random key of the evm store layout: storage, code, code hash, nonce or misc, few addresses. */
export function randomEvmKey(r: () => number): Uint8Array {
  const addr = new Uint8Array(20).fill(Math.floor(r() * 12));
  const kind = Math.floor(r() * 5);
  if (kind === 0) {
    const slot = new Uint8Array(32);
    slot[31] = Math.floor(r() * 20);
    return new Uint8Array([0x03, ...addr, ...slot]);
  }
  if (kind === 4) return new Uint8Array([0x01, ...addr.subarray(0, 1 + Math.floor(r() * 19))]);
  return new Uint8Array([[0x07, 0x08, 0x0a, 0x0a][kind - 1], ...addr]);
}

/** A block of random evm-store writes applied to `kv` (hex key -> value). */
export function randomEvmBlock(r: () => number, kv: Map<string, Uint8Array>, n: number) {
  const pairs = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const key = randomEvmKey(r);
    const hex = toHex(key);
    if (seen.has(hex)) continue;
    seen.add(hex);
    if (r() < 0.25) {
      pairs.push({ key, value: undefined });
      kv.delete(hex);
    } else {
      const value = randomBytes(r, 1, key[0] === 0x07 ? 200 : 32);
      pairs.push({ key, value });
      kv.set(hex, value);
    }
  }
  return pairs;
}

/** flatkv's KV engine for a CommitStore in memory: one MemoryKVStore per path, kept across reopens. */
export function memoryKV(): (path: string) => Promise<KVStore> {
  const dbs = new Map<string, MemoryKVStore>();
  return async (path) => {
    let db = dbs.get(path);
    if (!db) dbs.set(path, (db = new MemoryKVStore()));
    return Object.assign(Object.create(db), { close: async () => {} }) as KVStore;
  };
}

/**
 * Commits one random block at `version` over the Cosmos stores `acc`, `bank`, `staking` and the evm
 * store (EVM-layout keys), recording what it wrote in `model`; returns the app hash.
 */
export async function commitRandomBlock(
  sc: CommitStore,
  r: () => number,
  model: Model,
  version: number,
  perStore: number,
): Promise<Uint8Array> {
  const cs = randomBlock(r, model, ['acc', 'bank', 'staking'], perStore);
  const evm = model.get('evm') ?? new Map();
  model.set('evm', evm);
  cs.push({ store: 'evm', pairs: randomEvmBlock(r, evm, perStore) });
  sc.applyChangeSets(version, cs);
  return (await sc.commit()).appHash;
}
