/**
 * The commit store on the production engine (lmdb under flatkv): seeded random blocks, reads against
 * a reference model, reopen, rollback + re-apply and export -> import into a fresh lmdb-backed store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { SnapshotItem } from '../../../src/storage/sc/snapshot-items.ts';
import { fromHex, toHex } from '../../../src/primitives/bytes.ts';
import {
  cloneModel,
  randomBlock,
  randomEvmBlock,
  rng,
  tempDir,
  type Model,
} from '../../unit/storage/sc/helpers.ts';

const STORES = ['acc', 'bank', 'evm', 'staking'];

function assertReads(sc: CommitStore, model: Model): void {
  for (const [store, kv] of model)
    for (const [hex, value] of kv) assert.deepEqual(sc.get(store, fromHex(hex)), value, `${store} ${hex}`);
}

test('commit store on lmdb (flatkv): reads, reopen, rollback + re-apply, export -> import', async () => {
  const { dir, cleanup } = tempDir('sc-lmdb-');
  const other = tempDir('sc-lmdb-');
  try {
    const r = rng(2024);
    const opts = { dir, stores: STORES, snapshotInterval: 5, keepRecent: 2 };
    let sc = await CommitStore.open(opts);
    const model: Model = new Map();
    const models: Model[] = [cloneModel(model)];
    const hashes = [toHex(sc.appHash())];
    const blocks = [];
    for (let v = 1; v <= 20; v++) {
      const cs = randomBlock(r, model, ['acc', 'bank', 'staking'], 30);
      const evm = model.get('evm') ?? new Map();
      model.set('evm', evm);
      cs.push({ store: 'evm', pairs: randomEvmBlock(r, evm, 40) });
      blocks.push(cs);
      sc.applyChangeSets(v, cs);
      hashes.push(toHex((await sc.commit()).appHash));
      models.push(cloneModel(model));
    }
    assertReads(sc, model);
    await sc.close();

    sc = await CommitStore.open(opts);
    assert.equal(sc.version, 20);
    assert.equal(toHex(sc.appHash()), hashes[20]);
    assertReads(sc, model);

    const items: SnapshotItem[] = [];
    for await (const it of sc.export()) items.push(it);
    const fresh = await CommitStore.open({ ...opts, dir: other.dir });
    assert.equal(toHex((await fresh.import(20, items)).appHash), hashes[20]);
    assertReads(fresh, model);
    await fresh.close();

    await sc.rollback(12);
    assert.equal(toHex(sc.appHash()), hashes[12]);
    assertReads(sc, models[12]);
    for (let v = 13; v <= 20; v++) {
      sc.applyChangeSets(v, blocks[v - 1]);
      assert.equal(toHex((await sc.commit()).appHash), hashes[v]);
    }
    await sc.close();
  } finally {
    cleanup();
    other.cleanup();
  }
});
