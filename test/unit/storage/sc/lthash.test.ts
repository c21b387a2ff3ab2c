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
