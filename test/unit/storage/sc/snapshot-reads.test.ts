import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemIavlDB } from '../../../../src/storage/sc/memiavl/db.ts';
import { compareBytes, toHex } from '../../../../src/primitives/bytes.ts';
import { MutableTree } from '../../../../src/storage/sc/memiavl/tree.ts';
import { randomBytes, rng, tempDir } from './helpers.ts';

/**
 * Commits `present` (hex key -> value) as version 1 of store `s`, snapshots it and reopens: the tree
 * is then backed by the snapshot. memoryView is version 1 as the in-memory tree had it.
 */
async function snapshotBacked(dir: string, present: Map<string, Uint8Array>) {
  const pairs = [...present].map(([hex, value]) => ({
    key: Uint8Array.from(Buffer.from(hex, 'hex')),
    value,
  }));
  const built = await MemIavlDB.open({ dir, initialStores: ['s'], snapshotInterval: 0 });
  built.applyChangeSets([{ store: 's', pairs }]);
  await built.commit();
  const memoryView = (await built.viewsAt(1)).get('s')!;
  await built.snapshot();
  await built.close();
  const db = await MemIavlDB.open({ dir, initialStores: ['s'] });
  return { db, pairs, memoryView };
}

test('reads from a snapshot-backed tree (prefix search) agree with the in-memory tree, incl. prefix ties and absent keys', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(1234);
    const present = new Map<string, Uint8Array>();
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++) {
      // many keys share their first 4 or 8 bytes, some are prefixes of others
      const head = [0xaa, 0xbb, 0xcc, i % 3];
      const key =
        i % 5 === 0
          ? Uint8Array.from(head.slice(0, 1 + (i % 4)))
          : Uint8Array.from([...head, ...randomBytes(r, 0, 8)]);
      keys.push(key);
      present.set(toHex(key), randomBytes(r, 1, 8));
    }
    const { db, pairs, memoryView } = await snapshotBacked(dir, present);
    const snapView = (await db.viewsAt(1)).get('s')!;
    assert.equal(typeof snapView.root, 'number', 'the reopened tree is snapshot-backed');
    const probes = [...keys];
    for (let i = 0; i < 3000; i++)
      probes.push(Uint8Array.from([0xaa, 0xbb, 0xcc, i % 4, ...randomBytes(r, 0, 8)]));
    probes.push(new Uint8Array([0]), new Uint8Array([0xff, 0xff]), new Uint8Array([0xaa]));
    let hits = 0;
    for (const k of probes) {
      const expected = present.get(toHex(k));
      assert.deepEqual(snapView.get(k), expected, toHex(k));
      assert.deepEqual(memoryView.get(k), expected, toHex(k));
      if (expected) hits++;
    }
    assert.ok(hits >= 3000 && hits < probes.length);
    // after a block the top of the tree is in memory and the rest still in the snapshot
    db.applyChangeSets([
      {
        store: 's',
        pairs: [
          { key: keys[7], value: Uint8Array.of(9) },
          { key: keys[8], value: undefined },
        ],
      },
    ]);
    await db.commit();
    // and its hash (dirty nodes over snapshot children) equals the same history built in memory only
    const mem = new MutableTree();
    for (const p of [...pairs].sort((a, b) => compareBytes(a.key, b.key))) mem.set(p.key, p.value);
    mem.commit();
    const second = [
      { key: keys[7], value: Uint8Array.of(9) },
      { key: keys[8], value: undefined },
    ].sort((a, b) => compareBytes(a.key, b.key));
    for (const p of second) {
      if (p.value) mem.set(p.key, p.value);
      else mem.remove(p.key);
    }
    assert.equal(toHex(db.committedHashes()[0].hash), toHex(mem.commit().rootHash()));
    assert.deepEqual(db.get('s', keys[7]), Uint8Array.of(9));
    assert.equal(db.get('s', keys[8]), undefined);
    for (const k of keys.slice(10, 400)) assert.deepEqual(db.get('s', k), present.get(toHex(k)));
    await db.close();
  } finally {
    cleanup();
  }
});

test('snapshot reads narrowed by the sampled prefix index find every key, with prefix runs longer and shorter than a sample', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(99);
    const present = new Map<string, Uint8Array>();
    for (let i = 0; i < 6000; i++) {
      // 40 prefixes with long runs of equal first words, and fully random keys between them
      const key =
        i % 2 === 0
          ? Uint8Array.from([0x40, Math.floor(r() * 40), 0, 0, ...randomBytes(r, 0, 6)])
          : randomBytes(r, 1, 12);
      present.set(toHex(key), randomBytes(r, 1, 8));
    }
    const { db, pairs } = await snapshotBacked(dir, present);
    const view = (await db.viewsAt(1)).get('s')!;
    assert.equal(typeof view.root, 'number', 'the reopened tree is snapshot-backed');
    for (const { key, value } of pairs) assert.deepEqual(db.get('s', key), value, toHex(key));
    for (let i = 0; i < 6000; i++) {
      const probe =
        i % 2 === 0
          ? Uint8Array.from([0x40, Math.floor(r() * 41), 0, 0, ...randomBytes(r, 0, 6)])
          : randomBytes(r, 1, 12);
      assert.deepEqual(db.get('s', probe), present.get(toHex(probe)), toHex(probe));
    }
    await db.close();
  } finally {
    cleanup();
  }
});
