import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LtHash, rowLimbs } from '../../../../src/storage/sc/flatkv/lthash.ts';
import { fromHex, toHex, utf8 } from '../../../../src/primitives/bytes.ts';
import { loadVector } from './vectors.ts';

const v = loadVector('lthash.json');

test('lattice hash reproduces vectors/lthash.json (empty root, one row limbs and root)', () => {
  assert.equal(toHex(new LtHash().root()), v.emptyRoot);
  const key = fromHex(v.oneRow.key);
  const value = fromHex(v.oneRow.value);
  const limbs = rowLimbs(key, value)!;
  assert.deepEqual(Array.from(limbs.subarray(0, v.oneRow.firstLimbs.length)), v.oneRow.firstLimbs);
  const h = new LtHash();
  h.add(key, value);
  assert.equal(toHex(h.root()), v.oneRow.root);
});

test('lattice hash is order-independent and delete undoes insert', () => {
  const rows = Array.from({ length: 20 }, (_, i) => [utf8(`k${i}`), utf8(`v${i * 7}`)] as const);
  const a = new LtHash();
  const b = new LtHash();
  rows.forEach(([k, val]) => a.add(k, val));
  [...rows].reverse().forEach(([k, val]) => b.add(k, val));
  assert.equal(toHex(a.root()), toHex(b.root()));
  a.remove(rows[3][0], rows[3][1]);
  assert.notEqual(toHex(a.root()), toHex(b.root()));
  a.add(rows[3][0], rows[3][1]);
  assert.equal(toHex(a.root()), toHex(b.root()));
  rows.forEach(([k, val]) => a.remove(k, val));
  assert.equal(toHex(a.root()), v.emptyRoot);
  // empty key or value contributes nothing
  a.add(new Uint8Array(0), utf8('x'));
  a.add(utf8('x'), new Uint8Array(0));
  assert.equal(toHex(a.root()), v.emptyRoot);
  assert.deepEqual(LtHash.fromBytes(b.toBytes()).limbs, b.limbs);
});

test('two-lane (SWAR) add/remove equals per-limb arithmetic mod 2^16, including wrap-around', () => {
  const start = new Uint16Array(1024);
  for (let i = 0; i < 1024; i++) start[i] = [0, 1, 0x7fff, 0x8000, 0xffff, (i * 40503) & 0xffff][i % 6];
  for (let r = 0; r < 20; r++) {
    const key = utf8(`key-${r}`);
    const value = utf8(`value-${r * 31}`);
    const limbs = rowLimbs(key, value)!;
    const fast = new LtHash(start);
    const slow = new LtHash(start);
    fast.add(key, value);
    slow.addLimbs(limbs);
    assert.deepEqual(fast.limbs, slow.limbs);
    fast.remove(key, value);
    fast.remove(key, value);
    slow.subLimbs(limbs);
    slow.subLimbs(limbs);
    assert.deepEqual(fast.limbs, slow.limbs);
  }
});

test('the WASM SIMD lattice kernel sums rows exactly like the scalar path (every block-count boundary, multi-chunk rows, subtraction)', async () => {
  const { latticeSimd } = await import('../../../../src/storage/sc/flatkv/lattice-simd.ts');
  const { sumWrites } = await import('../../../../src/storage/sc/flatkv/lattice-pool.ts');
  const { locate } = await import('../../../../src/storage/sc/flatkv/layout.ts');
  const simd = latticeSimd();
  assert.ok(simd, 'Node 24 has WASM SIMD');
  let seed = 7;
  const byte = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, byte);
  const rows: { table: number; remove: boolean; key: Uint8Array; value: Uint8Array }[] = [];
  // preimage lengths 8 + k + v around every 64-byte block boundary, the 1024-byte chunk limit, and beyond
  for (const total of [9, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 2100]) {
    for (const k of [1, 21, 53]) {
      if (total - 8 - k < 0) continue;
      rows.push({
        table: rows.length % 4,
        remove: rows.length % 3 === 0,
        key: bytes(k),
        value: bytes(total - 8 - k),
      });
    }
  }
  rows.push({ table: 1, remove: false, key: bytes(5), value: new Uint8Array(0) }); // contributes nothing
  const expected = Array.from({ length: 4 }, () => new LtHash());
  for (const r of rows)
    (r.remove ? expected[r.table].remove : expected[r.table].add).call(expected[r.table], r.key, r.value);
  // a removed row is a write whose previous value it was, an added row one whose new value it is
  const writes = rows.map((r) => ({
    key: r.key,
    loc: locate(r.key),
    value: r.remove ? undefined : r.value,
    prevKnown: true,
    prev: r.remove ? r.value : undefined,
  }));
  const table = new Map(writes.map((w, i) => [w, rows[i].table]));
  const got = sumWrites(writes, 4, (w) => table.get(w)!);
  for (let t = 0; t < 4; t++)
    assert.deepEqual(got.subarray(t * 1024, (t + 1) * 1024), expected[t].limbs, `table ${t}`);
});
