import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import type { KVStore } from '../../../../src/storage/kv/types.ts';
import {
  CommitStore,
  type CommitStoreOptions,
  type StateCommitment,
} from '../../../../src/storage/sc/commit-store.ts';
import { commitInfoHash } from '../../../../src/storage/sc/commit-info.ts';
import { ProofUnsupportedError, RollbackRangeError } from '../../../../src/storage/sc/errors.ts';
import type { SnapshotItem } from '../../../../src/storage/sc/snapshot-items.ts';
import { decodeItems, encodeItems } from '../../../../src/storage/sc/snapshot-items.ts';
import { LockHeldError } from '../../../../src/util/errors.ts';
import { fromHex, toHex } from '../../../../src/primitives/bytes.ts';
import { type LogRecord, memoryLogger } from '../../../../src/util/logger.ts';
import { cloneModel, randomBlock, randomEvmBlock, rng, tempDir, type Model } from './helpers.ts';

const STORES = ['acc', 'bank', 'evm', 'staking'];

/** A memory engine that survives close(), standing in for a database directory across reopen. */
function persistentMemory(): (path: string) => Promise<KVStore> {
  const dbs = new Map<string, MemoryKVStore>();
  return async (path) => {
    let db = dbs.get(path);
    if (!db) dbs.set(path, (db = new MemoryKVStore()));
    return Object.assign(Object.create(db), { close: async () => {} }) as KVStore;
  };
}

function randomChangeSets(r: () => number, model: Model) {
  const cs = randomBlock(r, model, ['acc', 'bank', 'staking'], 25);
  const evm = model.get('evm') ?? new Map();
  model.set('evm', evm);
  cs.push({ store: 'evm', pairs: randomEvmBlock(r, evm, 25) });
  return cs;
}

function assertReads(sc: CommitStore, model: Model): void {
  for (const [store, kv] of model)
    for (const [hex, value] of kv) assert.deepEqual(sc.get(store, fromHex(hex)), value, `${store} ${hex}`);
}

for (const mode of ['flatkv', 'iavl'] as StateCommitment[]) {
  test(`commit store model (${mode}): reads, reopen, snapshot + replay, export -> import, rollback + re-apply`, async () => {
    const { dir, cleanup } = tempDir();
    const openKV = persistentMemory();
    const opts = (d: string): CommitStoreOptions => ({
      dir: d,
      stores: STORES,
      stateCommitment: mode,
      snapshotInterval: 6,
      keepRecent: 3,
      openKV,
      flatkvUndoWindow: 50,
    });
    try {
      const r = rng(mode === 'flatkv' ? 1 : 2);
      let sc = await CommitStore.open(opts(dir));
      const model: Model = new Map();
      const blocks = [];
      const appHashes: string[] = [toHex(sc.appHash())];
      const models: Model[] = [cloneModel(model)];
      for (let v = 1; v <= 25; v++) {
        const before = cloneModel(model);
        const cs = randomChangeSets(r, model);
        blocks.push(cs);
        sc.applyChangeSets(v, cs);
        // working reads see the block; committed reads still see the previous version
        for (const set of cs) {
          for (const p of set.pairs) {
            assert.deepEqual(sc.getWorking(set.store, p.key), p.value);
            assert.deepEqual(sc.get(set.store, p.key), before.get(set.store)?.get(toHex(p.key)));
          }
        }
        const working = toHex(sc.workingHash());
        const res = await sc.commit();
        assert.equal(res.version, v);
        assert.equal(toHex(res.appHash), working);
        assert.equal(toHex(commitInfoHash(sc.lastCommitInfo().stores)), working);
        appHashes.push(working);
        models.push(cloneModel(model));
        assertReads(sc, model);
      }
      const names = sc.lastCommitInfo().stores.map((s) => s.name);
      assert.deepEqual(
        names,
        mode === 'flatkv' ? ['acc', 'bank', 'evm_lattice', 'staking'] : ['acc', 'bank', 'evm', 'staking'],
      );
      await assert.rejects(CommitStore.open(opts(dir)), LockHeldError);

      await sc.close();
      sc = await CommitStore.open(opts(dir));
      assert.equal(sc.version, 25);
      assert.equal(toHex(sc.appHash()), appHashes[25]);
      assertReads(sc, model);

      // export -> import into a fresh store reproduces the app hash and the reads
      const items: SnapshotItem[] = [];
      for await (const it of sc.export()) items.push(it);
      const other = tempDir();
      const fresh = await CommitStore.open(opts(other.dir));
      const imported = await fresh.import(25, decodeItems(encodeItems(items)));
      assert.equal(toHex(imported.appHash), appHashes[25]);
      assertReads(fresh, model);
      await fresh.close();
      other.cleanup();

      // rollback: out of range is refused naming the range; in range then re-applying the same blocks
      const oldest = sc.oldestVersion();
      await assert.rejects(
        sc.rollback(oldest - 1),
        (e: Error) =>
          e instanceof RollbackRangeError && e.message.includes(`reachable heights are ${oldest}..25`),
      );
      await sc.rollback(14);
      assert.equal(toHex(sc.appHash()), appHashes[14]);
      assertReads(sc, models[14]);
      for (let v = 15; v <= 25; v++) {
        sc.applyChangeSets(v, blocks[v - 1]);
        assert.equal(toHex((await sc.commit()).appHash), appHashes[v]);
      }
      await sc.close();

      // an interrupted rollback (marker left behind) completes on the next open
      writeFileSync(join(dir, 'ROLLBACK'), JSON.stringify({ target: 20 }));
      sc = await CommitStore.open(opts(dir));
      assert.equal(sc.version, 20);
      assert.equal(toHex(sc.appHash()), appHashes[20]);
      await sc.close();
    } finally {
      cleanup();
    }
  });
}

test('flatkv chain: getProof of an evm key is a typed error naming state_commitment; legacy evm_flatkv section imports as evm', async () => {
  const { dir, cleanup } = tempDir();
  const openKV = persistentMemory();
  try {
    const sc = await CommitStore.open({ dir, stores: STORES, openKV });
    const key = fromHex('0a' + '11'.repeat(20));
    sc.applyChangeSets(1, [
      { store: 'evm', pairs: [{ key, value: Uint8Array.of(5) }] },
      { store: 'bank', pairs: [{ key: Uint8Array.of(1), value: Uint8Array.of(2) }] },
    ]);
    const { appHash } = await sc.commit();
    await assert.rejects(
      sc.getProof('evm', key),
      (e: Error) => e instanceof ProofUnsupportedError && e.message.includes('state_commitment = "iavl"'),
    );
    const items: SnapshotItem[] = [];
    for await (const it of sc.export())
      items.push(it.store?.name === 'evm' ? { store: { name: 'evm_flatkv' } } : it);
    assert.ok(items.some((i) => i.store?.name === 'evm_flatkv'));
    await sc.close();
    const other = tempDir();
    const fresh = await CommitStore.open({ dir: other.dir, stores: STORES, openKV: persistentMemory() });
    assert.equal(toHex((await fresh.import(1, items)).appHash), toHex(appHash));
    assert.deepEqual(fresh.get('evm', key), Uint8Array.of(5));
    await fresh.close();
    other.cleanup();
  } finally {
    cleanup();
  }
});

test('initial version (genesis initial_height): the first commit is that version and nodes carry it', async () => {
  const { MutableTree } = await import('../../../../src/storage/sc/memiavl/tree.ts');
  for (const mode of ['flatkv', 'iavl'] as StateCommitment[]) {
    const { dir, cleanup } = tempDir();
    try {
      const sc = await CommitStore.open({
        dir,
        stores: STORES,
        stateCommitment: mode,
        initialVersion: 10,
        openKV: persistentMemory(),
      });
      assert.equal(sc.version, 9);
      assert.throws(() => sc.applyChangeSets(1, []), /cannot apply version 1/);
      const pairs = [
        { key: Uint8Array.of(1), value: Uint8Array.of(1) },
        { key: Uint8Array.of(2), value: Uint8Array.of(2) },
      ];
      sc.applyChangeSets(10, [{ store: 'bank', pairs }]);
      assert.equal((await sc.commit()).version, 10);
      const expected = new MutableTree(undefined, 9);
      for (const p of pairs) expected.set(p.key, p.value!);
      const bank = sc.lastCommitInfo().stores.find((s) => s.name === 'bank')!;
      assert.equal(toHex(bank.hash), toHex(expected.commit().rootHash()));
      await sc.close();
    } finally {
      cleanup();
    }
  }
});

test('open reconciles backends left one block apart by a crash between the flatkv and memiavl commits', async () => {
  const { FlatKV } = await import('../../../../src/storage/sc/flatkv/store.ts');
  const { dir, cleanup } = tempDir();
  const openKV = persistentMemory();
  try {
    const r = rng(31);
    const opts: CommitStoreOptions = { dir, stores: STORES, openKV, snapshotInterval: 2 };
    let sc = await CommitStore.open(opts);
    const model: Model = new Map();
    const hashes: string[] = [];
    const blocks = [];
    for (let v = 1; v <= 6; v++) {
      const cs = randomChangeSets(r, model);
      blocks.push(cs);
      if (v === 6) break;
      sc.applyChangeSets(v, cs);
      hashes[v] = toHex((await sc.commit()).appHash);
    }
    await sc.close();
    // block 6 reached flatkv (its commit is first) but the process died before memiavl's
    const flat = await FlatKV.open(await openKV(join(dir, 'flatkv')));
    flat.applyPairs(blocks[5].find((c) => c.store === 'evm')!.pairs);
    await flat.commit(6);
    sc = await CommitStore.open(opts);
    assert.equal(sc.version, 5);
    assert.equal(toHex(sc.appHash()), hashes[5]);
    sc.applyChangeSets(6, blocks[5]);
    const again = toHex((await sc.commit()).appHash);
    // the same block on a store that never crashed gives the same app hash
    const other = tempDir();
    const clean = await CommitStore.open({ ...opts, dir: other.dir, openKV: persistentMemory() });
    for (let v = 1; v <= 6; v++) {
      clean.applyChangeSets(v, blocks[v - 1]);
      await clean.commit();
    }
    assert.equal(again, toHex(clean.appHash()));
    await clean.close();
    other.cleanup();
    await sc.close();
  } finally {
    cleanup();
  }
});

test('import rejects streams that cannot describe the state: flat evm section into an IAVL chain, out-of-order leaves', async () => {
  const { ImportError } = await import('../../../../src/storage/sc/errors.ts');
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(8);
    const sc = await CommitStore.open({ dir, stores: STORES, openKV: persistentMemory() });
    const model: Model = new Map();
    for (let v = 1; v <= 3; v++) {
      sc.applyChangeSets(v, randomChangeSets(r, model));
      await sc.commit();
    }
    const items: SnapshotItem[] = [];
    for await (const it of sc.export()) items.push(it);
    await sc.close();
    const iavlChain = tempDir();
    const target = await CommitStore.open({
      dir: iavlChain.dir,
      stores: STORES,
      stateCommitment: 'iavl',
      openKV: persistentMemory(),
    });
    await assert.rejects(
      target.import(3, items),
      (e: Error) => e instanceof ImportError && /store evm/.test(e.message),
    );
    // swap two leaves of the bank section
    const bank = items.findIndex((i) => i.store?.name === 'bank');
    const swapped = items.slice();
    [swapped[bank + 1], swapped[bank + 2]] = [swapped[bank + 2], swapped[bank + 1]];
    const flatChain = tempDir();
    const other = await CommitStore.open({ dir: flatChain.dir, stores: STORES, openKV: persistentMemory() });
    await assert.rejects(other.import(3, swapped), ImportError);
    await target.close();
    await other.close();
    // a store whose import failed refuses to open instead of serving mixed state
    await assert.rejects(
      CommitStore.open({ dir: flatChain.dir, stores: STORES, openKV: persistentMemory() }),
      (e: Error) => e instanceof ImportError && /did not finish/.test(e.message),
    );
    iavlChain.cleanup();
    flatChain.cleanup();
  } finally {
    cleanup();
  }
});

test('reopening a directory with the other state_commitment is refused with a clear error', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const openKV = persistentMemory();
    const sc = await CommitStore.open({ dir, stores: STORES, openKV });
    await sc.close();
    await assert.rejects(
      CommitStore.open({ dir, stores: STORES, stateCommitment: 'iavl', openKV }),
      (e: Error) => e.message.includes('state_commitment = "flatkv"') && e.message.includes('"iavl"'),
    );
    // the refusal released the lock: the right mode still opens
    const again = await CommitStore.open({ dir, stores: STORES, openKV });
    await again.close();
  } finally {
    cleanup();
  }
});

test('iterate: a Cosmos store in key order or reverse within bounds, at the latest or a retained version; flatkv EVM state refuses', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const sc = await CommitStore.open({
      dir,
      stores: STORES,
      stateCommitment: 'flatkv',
      openKV: persistentMemory(),
    });
    const key = (n: number) => Uint8Array.of(n);
    sc.applyChangeSets(1, [
      { store: 'bank', pairs: [1, 3, 5, 7].map((n) => ({ key: key(n), value: key(n * 10) })) },
    ]);
    await sc.commit();
    sc.applyChangeSets(2, [
      {
        store: 'bank',
        pairs: [
          { key: key(3), value: undefined },
          { key: key(4), value: key(40) },
        ],
      },
    ]);
    await sc.commit();
    const keys = async (it: AsyncIterable<[Uint8Array, Uint8Array]>) => {
      const out: number[] = [];
      for await (const [k, v] of it) {
        assert.equal(v[0], k[0] * 10);
        out.push(k[0]);
      }
      return out;
    };
    assert.deepEqual(await keys(sc.iterate('bank', undefined, undefined, 2)), [1, 4, 5, 7]);
    assert.deepEqual(await keys(sc.iterate('bank', key(2), key(7), 2)), [4, 5]);
    assert.deepEqual(await keys(sc.iterate('bank', key(2), key(7), 2, true)), [5, 4]);
    assert.deepEqual(await keys(sc.iterate('bank', key(3), undefined, 1)), [3, 5, 7], 'version 1 as it was');
    assert.deepEqual(await keys(sc.iterate('acc', undefined, undefined, 2)), []);
    await assert.rejects(
      keys(sc.iterate('evm', undefined, undefined, 2)),
      /flatkv, whose tables have no key order/,
    );
    await sc.close();
  } finally {
    cleanup();
  }
});

for (const mode of ['flatkv', 'iavl'] as StateCommitment[]) {
  test(`rollback within the versions kept in memory (${mode}): no reload, the same state, detours undone, durable`, async () => {
    const { dir, cleanup } = tempDir();
    const openKV = persistentMemory();
    const records: LogRecord[] = [];
    const opts: CommitStoreOptions = {
      dir,
      stores: STORES,
      stateCommitment: mode,
      snapshotInterval: 0,
      retainVersions: 32,
      flatkvFlushInterval: 100,
      openKV,
      logger: memoryLogger(records),
    };
    const inMemory = () => records.filter((x) => x.msg === 'state commit rewound in memory').length;
    try {
      const r = rng(mode === 'flatkv' ? 3 : 4);
      let sc = await CommitStore.open(opts);
      const model: Model = new Map();
      const blocks = [];
      const appHashes: string[] = [toHex(sc.appHash())];
      const models: Model[] = [cloneModel(model)];
      for (let v = 1; v <= 20; v++) {
        const cs = randomChangeSets(r, model);
        blocks.push(cs);
        sc.applyChangeSets(v, cs);
        appHashes.push(toHex((await sc.commit()).appHash));
        models.push(cloneModel(model));
      }
      await sc.rollback(15);
      assert.equal(inMemory(), 1);
      assert.equal(sc.version, 15);
      assert.equal(toHex(sc.appHash()), appHashes[15]);
      assertReads(sc, models[15]);
      // a detour of other blocks, undone in turn, and an uncommitted working version dropped
      const detour = cloneModel(models[15]);
      for (let v = 16; v <= 18; v++) {
        sc.applyChangeSets(v, randomChangeSets(r, detour));
        await sc.commit();
      }
      sc.applyChangeSets(19, randomChangeSets(r, detour));
      await sc.rollback(15);
      assert.equal(inMemory(), 2);
      assert.equal(toHex(sc.appHash()), appHashes[15]);
      assertReads(sc, models[15]);
      for (let v = 16; v <= 20; v++) {
        sc.applyChangeSets(v, blocks[v - 1]);
        assert.equal(toHex((await sc.commit()).appHash), appHashes[v]);
      }
      await sc.rollback(17);
      await sc.close();
      // nothing above 17 replays from the logs on open
      sc = await CommitStore.open(opts);
      assert.equal(sc.version, 17);
      assert.equal(toHex(sc.appHash()), appHashes[17]);
      assertReads(sc, models[17]);
      // only the version just opened is kept in memory: a rollback below it reloads
      await sc.rollback(16);
      assert.equal(inMemory(), 3);
      assert.ok(records.some((x) => x.msg === 'state commit rolled back'));
      assert.equal(toHex(sc.appHash()), appHashes[16]);
      await sc.close();
    } finally {
      cleanup();
    }
  });
}

test('versions beyond the default 16 are kept in memory only within the retainPairs budget', async () => {
  const { dir, cleanup } = tempDir();
  const records: LogRecord[] = [];
  const opts: CommitStoreOptions = {
    dir,
    stores: STORES,
    stateCommitment: 'iavl',
    snapshotInterval: 0,
    retainVersions: 64,
    retainPairs: 500,
    openKV: persistentMemory(),
    logger: memoryLogger(records),
  };
  const inMemory = () => records.filter((x) => x.msg === 'state commit rewound in memory').length;
  try {
    const r = rng(5);
    const sc = await CommitStore.open(opts);
    const model: Model = new Map();
    const appHashes: string[] = [toHex(sc.appHash())];
    // 100 pairs a version: the budget keeps 16 versions (the default), not 64
    for (let v = 1; v <= 40; v++) {
      sc.applyChangeSets(v, randomChangeSets(r, model));
      appHashes.push(toHex((await sc.commit()).appHash));
    }
    await sc.rollback(30);
    assert.equal(inMemory(), 1, '10 versions back: in memory');
    await sc.rollback(10);
    assert.equal(inMemory(), 1, '20 versions back: beyond the budget, reloaded');
    assert.equal(toHex(sc.appHash()), appHashes[10]);
    await sc.close();
  } finally {
    cleanup();
  }
});
