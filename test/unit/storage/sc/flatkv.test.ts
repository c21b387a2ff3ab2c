import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import { FlatKV } from '../../../../src/storage/sc/flatkv/store.ts';
import { LtHash } from '../../../../src/storage/sc/flatkv/lthash.ts';
import { RollbackRangeError } from '../../../../src/storage/sc/errors.ts';
import { fromHex, toHex } from '../../../../src/primitives/bytes.ts';
import { randomEvmBlock, rng } from './helpers.ts';

/** The expected root, recomputed from scratch over the reference rows (not incrementally). */
function referenceRoot(kv: Map<string, Uint8Array>): string {
  const h = new LtHash();
  for (const [k, v] of kv) h.add(fromHex(k), v);
  return toHex(h.root());
}

test('flatkv model: reads and lattice root match a from-scratch reference; reopen, rollback, export/import', async () => {
  const r = rng(99);
  const mem = new MemoryKVStore();
  let fk = await FlatKV.open(mem, { undoWindow: 15 });
  assert.equal(toHex(fk.committedHash()), referenceRoot(new Map()));
  const kv = new Map<string, Uint8Array>();
  const models: Map<string, Uint8Array>[] = [new Map()];
  const roots: string[] = [toHex(fk.committedHash())];
  const blocks = [];
  for (let v = 1; v <= 30; v++) {
    const pairs = randomEvmBlock(r, kv, 25);
    blocks.push(pairs);
    fk.applyPairs(pairs);
    // working reads see the block, committed reads do not
    for (const p of pairs) assert.deepEqual(fk.getWorking(p.key), p.value);
    assert.equal(toHex(fk.workingHash()), referenceRoot(kv));
    const root = toHex(await fk.commit(v));
    assert.equal(root, referenceRoot(kv));
    roots.push(root);
    models.push(new Map(kv));
    for (const [hex, value] of kv) assert.deepEqual(fk.get(fromHex(hex)), value);
  }
  // every table has rows (the generator covers all four)
  assert.ok(Object.values(fk.tableHashes()).every((h) => h !== toHex(new LtHash().root())));

  fk = await FlatKV.open(mem, { undoWindow: 15 });
  assert.equal(fk.version, 30);
  assert.equal(toHex(fk.committedHash()), roots[30]);

  await assert.rejects(
    fk.rollback(10),
    (e: Error) => e instanceof RollbackRangeError && e.message.includes('reachable heights are 15..30'),
  );
  await fk.rollback(18);
  assert.equal(toHex(fk.committedHash()), roots[18]);
  for (const [hex, value] of models[18]) assert.deepEqual(fk.get(fromHex(hex)), value);
  const exported = [];
  for await (const row of fk.export()) exported.push(row);
  assert.equal(exported.length, models[18].size);
  for (let v = 19; v <= 30; v++) {
    fk.applyPairs(blocks[v - 1]);
    assert.equal(toHex(await fk.commit(v)), roots[v]);
  }

  const fresh = await FlatKV.open(new MemoryKVStore());
  await fresh.import(18, exported);
  assert.equal(fresh.version, 18);
  assert.equal(toHex(fresh.committedHash()), roots[18]);
  for (const [hex, value] of models[18]) assert.deepEqual(fresh.get(fromHex(hex)), value);
  assert.equal(fresh.get(fromHex('0a' + '00'.repeat(19) + 'ff')), undefined);
});

test('flatkv hashes large blocks on worker threads with the same result as on the caller', async () => {
  const r = rng(3);
  const kvA = new Map<string, Uint8Array>();
  const pooled = await FlatKV.open(new MemoryKVStore(), { hashWorkers: 2 });
  const single = await FlatKV.open(new MemoryKVStore(), { hashWorkers: 0 });
  for (let v = 1; v <= 3; v++) {
    const pairs = randomEvmBlock(r, kvA, 3000);
    // plus fresh storage slots so that the block is well above the pool threshold
    for (let i = 0; i < 1500; i++) {
      const key = new Uint8Array(53);
      key[0] = 0x03;
      key[1] = v;
      new DataView(key.buffer).setUint32(40, i);
      const value = Uint8Array.of(v, i & 255, 1);
      pairs.push({ key, value });
      kvA.set(toHex(key), value);
    }
    pooled.applyPairs(pairs);
    single.applyPairs(pairs);
    const a = toHex(await pooled.workingHashAsync());
    assert.equal(a, toHex(single.workingHash()));
    assert.equal(a, referenceRoot(kvA));
    assert.equal(toHex(await pooled.commit(v)), a);
    assert.equal(toHex(await single.commit(v)), a);
  }
  await pooled.close();
  await single.close();
});
