/**
 * `npm run bench -- snapshot [keys]` (default 1,000,000, half of them EVM storage slots in flatkv, half
 * Cosmos keys in memiavl): the state-sync snapshot of a State Commit on lmdb — time to write it (the
 * background export the node runs after a snapshot height), its size and chunk count — and the time
 * to restore it into an empty State Commit (what ApplySnapshotChunk does after the last chunk), with
 * the restored app hash checked against the original.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSnapshotItems, SnapshotStore } from '../src/cometbft/snapshots.ts';
import { equalBytes } from '../src/primitives/bytes.ts';
import { CommitStore } from '../src/storage/sc/commit-store.ts';
import { report } from './report.ts';

const KEYS = Number(process.argv[3] ?? 1_000_000);
const PER_BLOCK = 10_000;
const STORES = ['acc', 'bank', 'evm', 'staking'];

/** Deterministic filler: SplitMix-style bytes from a counter. */
function fill(out: Uint8Array, seed: number): Uint8Array {
  let x = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    out[i] = (z ^ (z >>> 16)) & 0xff;
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'chaind-bench-snapshot-'));
try {
  const sc = await CommitStore.open({ dir: join(dir, 'source'), stores: STORES });
  let version = 0;
  const t0 = performance.now();
  for (let done = 0; done < KEYS; done += PER_BLOCK) {
    const evm = [];
    const bank = [];
    for (let i = 0; i < PER_BLOCK / 2; i++) {
      const n = done + i;
      // an EVM storage slot: 0x03 ‖ address ‖ slot
      const key = new Uint8Array(53);
      key[0] = 0x03;
      fill(key.subarray(1, 21), n % 5000);
      fill(key.subarray(21), n * 2 + 1);
      evm.push({ key, value: fill(new Uint8Array(32), n * 3 + 7) });
      bank.push({ key: fill(new Uint8Array(41), n * 5 + 11), value: fill(new Uint8Array(24), n) });
    }
    sc.applyChangeSets(++version, [
      { store: 'bank', pairs: bank },
      { store: 'evm', pairs: evm },
    ]);
    await sc.commit();
  }
  report('snapshot', 'state built', (performance.now() - t0) / 1000, 's', { keys: KEYS, blocks: version });

  const store = new SnapshotStore({ dir: join(dir, 'snapshots'), keepRecent: 2 });
  const appHash = sc.appHash();
  const t1 = performance.now();
  const meta = await store.write(version, appHash, sc.export(version));
  const written = (performance.now() - t1) / 1000;
  report('snapshot', 'snapshot written', written, 's', { keys: KEYS, items: meta.items });
  report('snapshot', 'snapshot size', meta.size / 2 ** 20, 'MiB', {
    uncompressed_mib: Math.round((meta.bytes / 2 ** 20) * 10) / 10,
    chunks: meta.chunks,
  });
  await sc.close();

  const target = await CommitStore.open({ dir: join(dir, 'restored'), stores: STORES });
  const chunks = Array.from({ length: meta.chunks }, (_, i) => store.chunk(version, meta.format, i)!);
  const t2 = performance.now();
  const restored = await target.import(version, readSnapshotItems(chunks));
  const restore = (performance.now() - t2) / 1000;
  if (!equalBytes(restored.appHash, appHash))
    throw new Error('the restored app hash differs from the snapshot');
  report('snapshot', 'restore (import into an empty State Commit)', restore, 's', {
    keys: KEYS,
    app_hash_equal: true,
  });
  await target.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
