import { test } from 'node:test';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { MemIavlDB } from '../../../../src/storage/sc/memiavl/db.ts';
import { fromHex, toHex } from '../../../../src/primitives/bytes.ts';
import { listSnapshots } from '../../../../src/storage/sc/memiavl/snapshots.ts';
import { RollbackRangeError } from '../../../../src/storage/sc/errors.ts';
import { cloneModel, randomBlock, rng, tempDir, type Model } from './helpers.ts';

const STORES = ['acc', 'bank', 'staking'];
const hashesOf = (s: { name: string; hash: Uint8Array }[]) =>
  s.map((x) => `${x.name}:${toHex(x.hash)}`).join(',');

async function checkReads(db: MemIavlDB, version: number, model: Model): Promise<void> {
  const views = await db.viewsAt(version);
  for (const store of STORES) {
    const expected = model.get(store) ?? new Map();
    const view = views.get(store)!;
    assert.equal(view.size, expected.size, `size of ${store} at ${version}`);
    for (const [hex, value] of expected) assert.deepEqual(view.get(fromHex(hex)), value);
    const got = [...view.entries()].map(([k, v]) => `${toHex(k)}=${toHex(v)}`);
    assert.deepEqual(
      got,
      [...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${toHex(v)}`),
    );
  }
}

test('memiavl model: reads per version, reopen, snapshot + replay, rollback + re-apply give identical hashes', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(42);
    let db = await MemIavlDB.open({
      dir,
      initialStores: STORES,
      snapshotInterval: 7,
      snapshotKeepRecent: 2,
      retainVersions: 5,
    });
    const model: Model = new Map();
    const models: Model[] = [cloneModel(model)];
    const blocks = [];
    const hashes: string[] = [hashesOf(db.workingHashes())];
    for (let v = 1; v <= 40; v++) {
      const cs = randomBlock(r, model, STORES, 30);
      blocks.push(cs);
      db.applyChangeSets(cs);
      const res = await db.commit();
      assert.equal(res.version, v);
      hashes.push(hashesOf(res.stores));
      models.push(cloneModel(model));
      await checkReads(db, v, model);
    }
    // older versions (not retained in memory) are rebuilt from a snapshot + changelog
    await db.snapshot();
    await checkReads(db, 36, models[36]);
    await assert.rejects(db.viewsAt(3), /not available/);

    await db.close();
    db = await MemIavlDB.open({ dir, initialStores: STORES, snapshotInterval: 7, snapshotKeepRecent: 2 });
    assert.equal(db.version, 40);
    assert.equal(hashesOf(db.workingHashes()), hashes[40]);
    await checkReads(db, 40, models[40]);

    // rollback: out of range refused with the reachable range, in range reproduces the old state
    // (a snapshot is skipped while the previous one is still being written, so read the oldest kept)
    const oldest = listSnapshots(dir)[0];
    assert.ok(oldest > 2 && oldest <= 30, `oldest snapshot ${oldest}`);
    await assert.rejects(
      db.rollback(2),
      (e: Error) =>
        e instanceof RollbackRangeError && e.message.includes(`reachable heights are ${oldest}..40`),
    );
    await db.rollback(30);
    assert.equal(db.version, 30);
    assert.equal(hashesOf(db.workingHashes()), hashes[30]);
    await checkReads(db, 30, models[30]);
    for (let v = 31; v <= 40; v++) {
      db.applyChangeSets(blocks[v - 1]);
      assert.equal(hashesOf((await db.commit()).stores), hashes[v]);
    }
    await db.close();
    db = await MemIavlDB.open({ dir, initialStores: STORES });
    assert.equal(hashesOf(db.workingHashes()), hashes[40]);
    await db.close();
  } finally {
    cleanup();
  }
});

test('memiavl async commit buffer: entries become durable on flush and survive reopen', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(7);
    const db = await MemIavlDB.open({
      dir,
      initialStores: STORES,
      asyncCommitBuffer: 4,
      snapshotInterval: 0,
    });
    const model: Model = new Map();
    let last = '';
    for (let v = 1; v <= 12; v++) {
      db.applyChangeSets(randomBlock(r, model, STORES, 20));
      last = hashesOf((await db.commit()).stores);
    }
    await db.close();
    const again = await MemIavlDB.open({ dir, initialStores: STORES });
    assert.equal(again.version, 12);
    assert.equal(hashesOf(again.workingHashes()), last);
    await again.close();
  } finally {
    cleanup();
  }
});

test('memiavl store upgrades (add, rename, delete) are logged and replayed on open', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const k = Uint8Array.of(1);
    let db = await MemIavlDB.open({ dir, initialStores: ['acc'], snapshotInterval: 0 });
    db.applyChangeSets([{ store: 'acc', pairs: [{ key: k, value: Uint8Array.of(1) }] }]);
    await db.commit();
    db.applyUpgrades([{ name: 'new' }]);
    db.applyChangeSets([{ store: 'new', pairs: [{ key: k, value: Uint8Array.of(2) }] }]);
    await db.commit();
    db.applyUpgrades([
      { name: 'renamed', renameFrom: 'new' },
      { name: 'acc', delete: true },
    ]);
    const res = await db.commit();
    assert.deepEqual(
      res.stores.map((s) => s.name),
      ['renamed'],
    );
    assert.deepEqual(db.get('renamed', k), Uint8Array.of(2));
    await db.close();
    db = await MemIavlDB.open({ dir, initialStores: ['acc'] });
    assert.equal(db.version, 3);
    assert.deepEqual(db.storeNames(), ['renamed']);
    assert.equal(hashesOf(db.workingHashes()), hashesOf(res.stores));
    assert.throws(() => db.get('acc', k), /no store named "acc"/);
    await db.close();
  } finally {
    cleanup();
  }
});

test('memiavl truncates changelog segments behind the oldest kept snapshot', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(9);
    const db = await MemIavlDB.open({
      dir,
      initialStores: STORES,
      snapshotInterval: 5,
      snapshotKeepRecent: 1,
    });
    const model: Model = new Map();
    for (let v = 1; v <= 30; v++) {
      db.applyChangeSets(randomBlock(r, model, STORES, 5));
      await db.commit();
      await db.snapshot(); // wait for any background snapshot so the layout is deterministic
    }
    const snaps = listSnapshots(dir);
    assert.deepEqual(snaps, [29, 30]);
    const segments = readdirSync(join(dir, 'changelog')).map((n) => Number(n.slice(0, -4)));
    assert.ok(Math.min(...segments) <= snaps[0] + 1 && segments.length <= 3, `segments ${segments}`);
    await db.close();
  } finally {
    cleanup();
  }
});

test('memiavl: a torn changelog tail is cut off on open; a damaged snapshot falls back to an older one, none left is a typed error', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(77);
    let db = await MemIavlDB.open({ dir, initialStores: STORES, snapshotInterval: 0 });
    const model: Model = new Map();
    const hashes: string[] = [];
    for (let v = 1; v <= 5; v++) {
      db.applyChangeSets(randomBlock(r, model, STORES, 10));
      hashes.push(hashesOf((await db.commit()).stores));
    }
    await db.close();
    // a crash in the middle of appending block 6: half a record at the end of the last segment
    const logDir = join(dir, 'changelog');
    const seg = join(logDir, readdirSync(logDir).sort().at(-1)!);
    appendFileSync(seg, Buffer.from([40, 0, 0, 0, 1, 2, 3, 4, 6, 0]));
    db = await MemIavlDB.open({ dir, initialStores: STORES });
    assert.equal(db.version, 5);
    assert.equal(hashesOf(db.workingHashes()), hashes[4]);
    // and the log accepts the next block where the torn one was
    db.applyChangeSets(randomBlock(r, model, STORES, 10));
    const sixth = hashesOf((await db.commit()).stores);
    assert.equal(db.version, 6);
    await db.snapshot();
    await db.close();
    // flip a byte of the newest snapshot's root record hash: open falls back to the older snapshot
    // plus a longer replay, checks the result against the damaged snapshot's recorded hashes, and
    // removes the damaged one
    const damaged = join(dir, `snapshot-${String(6).padStart(20, '0')}`);
    const branches = readFileSync(join(damaged, 'bank', 'branches'));
    branches[branches.length - 20] ^= 0xff;
    writeFileSync(join(damaged, 'bank', 'branches'), branches);
    db = await MemIavlDB.open({ dir, initialStores: STORES });
    assert.equal(db.version, 6);
    assert.deepEqual(listSnapshots(dir), [0]);
    assert.equal(hashesOf(db.workingHashes()), sixth);
    await db.close();
    // with no usable snapshot left, open refuses with a typed error
    const only = join(dir, `snapshot-${String(0).padStart(20, '0')}`, 'bank', 'meta.json');
    writeFileSync(only, '{"version":0,"root":null,"branches":5,"leaves":0,"rootHash":""}');
    await assert.rejects(
      MemIavlDB.open({ dir, initialStores: STORES }),
      (e: Error) => (e as { code?: string }).code === 'SC_SNAPSHOT_CORRUPT',
    );
  } finally {
    cleanup();
  }
});
