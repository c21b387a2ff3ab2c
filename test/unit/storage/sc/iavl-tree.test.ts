import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MutableTree } from '../../../../src/storage/sc/memiavl/tree.ts';
import { leafHash, innerHash } from '../../../../src/storage/sc/memiavl/hashing.ts';
import { toHex, utf8 } from '../../../../src/primitives/bytes.ts';
import { loadVector } from './vectors.ts';

const v = loadVector('iavl.json');
const two = (i: number) => String(i).padStart(2, '0');

/** Expands the vector's block descriptions into [op, key, value] triples. */
function opsOf(block: any): [string, string, string?][] {
  if (Array.isArray(block.ops)) return block.ops;
  if (block.version === 6) return Array.from({ length: 21 }, (_, i) => ['set', `aello${two(i)}`, 'world1']);
  if (block.version === 7) {
    return [
      ...Array.from({ length: 21 }, (_, i) => ['delete', `aello${two(i)}`] as [string, string]),
      ...Array.from({ length: 19 }, (_, i) => ['delete', `hello${two(i)}`] as [string, string]),
    ];
  }
  throw new Error(`unknown block ${block.version}`);
}

test('IAVL reproduces vectors/iavl.json roots for blocks 1-7', () => {
  const t = new MutableTree();
  assert.equal(toHex(t.committed().rootHash()), v.emptyRoot);
  assert.equal(v.blocks.length, 7);
  for (const block of v.blocks) {
    for (const [op, k, val] of opsOf(block)) {
      if (op === 'set') t.set(utf8(k), utf8(val!));
      else t.remove(utf8(k));
    }
    const view = t.commit();
    assert.equal(view.version, block.version);
    assert.equal(toHex(view.rootHash()), block.root, `block ${block.version}`);
  }
});

test('IAVL reproduces the derived leaf and two-leaf vectors', () => {
  const d = v.derived;
  assert.equal(toHex(leafHash(1, utf8('a'), utf8('1'))), d.leafA1.hash);
  assert.equal(toHex(leafHash(1, utf8('b'), utf8('2'))), d.leafB2.hash);
  assert.equal(
    toHex(innerHash(1, 2, 1, leafHash(1, utf8('a'), utf8('1')), leafHash(1, utf8('b'), utf8('2')))),
    d.treeAB.root,
  );
  const t = new MutableTree();
  t.set(utf8('b'), utf8('2'));
  t.set(utf8('a'), utf8('1'));
  assert.equal(toHex(t.commit().rootHash()), d.treeAB.root);
});

test('committed versions stay readable while the next version is built (copy-on-write)', () => {
  const t = new MutableTree();
  for (let i = 0; i < 100; i++) t.set(utf8(`k${i}`), utf8(`a${i}`));
  const v1 = t.commit();
  const h1 = toHex(v1.rootHash());
  for (let i = 0; i < 100; i += 2) t.set(utf8(`k${i}`), utf8(`b${i}`));
  for (let i = 1; i < 100; i += 4) t.remove(utf8(`k${i}`));
  assert.equal(toHex(v1.get(utf8('k2'))!), toHex(utf8('a2')));
  assert.equal(toHex(t.get(utf8('k2'))!), toHex(utf8('b2')));
  assert.equal(t.get(utf8('k1')), undefined);
  const v2 = t.commit();
  assert.equal(toHex(v1.rootHash()), h1);
  assert.equal(v1.size, 100);
  assert.equal(v2.size, 75);
  assert.equal(toHex(v1.get(utf8('k1'))!), toHex(utf8('a1')));
  assert.equal(v2.get(utf8('k1')), undefined);
});

test('4-lane SIMD SHA-256 matches node:crypto for one- and two-block messages; batched dirty-node hashing gives the scalar root', async () => {
  const { createHash } = await import('node:crypto');
  const { sha256x4, pad, MSG_BYTES, OUT_PTR } =
    await import('../../../../src/storage/sc/memiavl/sha256-simd.ts');
  const { NodeReader } = await import('../../../../src/storage/sc/memiavl/node.ts');
  const k = sha256x4();
  assert.ok(k, 'Node 24 has WASM SIMD');
  let seed = 5;
  const bytes = (n: number): Uint8Array =>
    Uint8Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
  for (const len of [0, 1, 55, 56, 63, 64, 69, 83, 119]) {
    const blocks = Math.ceil((len + 9) / 64);
    const msgs = [0, 1, 2, 3].map(() => bytes(len));
    msgs.forEach((m, j) => {
      k.mem.set(m, j * MSG_BYTES);
      pad(k.mem, j * MSG_BYTES, len, blocks);
    });
    k.run(blocks);
    msgs.forEach((m, j) =>
      assert.equal(
        Buffer.from(k.mem.subarray(OUT_PTR + 32 * j, OUT_PTR + 32 * j + 32)).toString('hex'),
        createHash('sha256').update(m).digest('hex'),
        `length ${len}, lane ${j}`,
      ),
    );
  }
  // the same operations with the batched path switched off give the same root at every version
  const batched = new MutableTree();
  const scalar = new MutableTree();
  const proto = NodeReader.prototype as unknown as { hashDirty: (r: unknown) => void };
  const saved = proto.hashDirty;
  const live: Uint8Array[] = [];
  for (let v = 0; v < 6; v++) {
    for (let i = 0; i < 400; i++) {
      if (live.length > 0 && seed % 4 === 0) {
        const key = live.splice(seed % live.length, 1)[0];
        batched.remove(key);
        scalar.remove(key);
      } else {
        const key = bytes(1 + (seed % 40));
        const value = bytes(1 + (seed % 70));
        live.push(key);
        batched.set(key, value);
        scalar.set(key, value);
      }
    }
    const a = toHex(batched.commit().rootHash());
    proto.hashDirty = () => {};
    try {
      assert.equal(toHex(scalar.commit().rootHash()), a, `version ${v + 1}`);
    } finally {
      proto.hashDirty = saved;
    }
  }
});
