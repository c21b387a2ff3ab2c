import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EMPTY_MERKLE_ROOT, merkleRoot } from '../../../src/codec/merkle.ts';
import { lengthDelimited, ProtoWriter } from '../../../src/codec/proto.ts';
import { toHex } from '../../../src/primitives/bytes.ts';

const sha = (...parts: number[][]) => createHash('sha256').update(Uint8Array.from(parts.flat())).digest();

test('merkle root reproduces CometBFT HashFromByteSlices vectors', () => {
  // crypto/merkle/tree_test.go TestHashFromByteSlices
  const cases: [number[][], string][] = [
    [[], 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [[[1, 2, 3]], '054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8'],
    [[[]], '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d'],
    [
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      '82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b',
    ],
    [
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
      ],
      'f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18',
    ],
  ];
  for (const [items, root] of cases)
    assert.equal(toHex(merkleRoot(items.map((i) => Uint8Array.from(i)))), root);
  assert.equal(toHex(EMPTY_MERKLE_ROOT), cases[0][1]);
});

test('merkle root of 3 items splits 2 + 1 (largest power of two below n)', () => {
  const leaf = (b: number) => sha([0, b]);
  const inner = (l: Buffer, r: Buffer) => sha([1], [...l], [...r]);
  const expected = inner(inner(leaf(1), leaf(2)), leaf(3));
  assert.equal(toHex(merkleRoot([Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)])), toHex(expected));
});

test('proto writer omits defaults, writes non-nullable messages and sign-extends negatives', () => {
  const w = new ProtoWriter().varint(1, 0).bytes(2, new Uint8Array()).string(3, '').sfixed64(4, 0);
  assert.deepEqual(w.finish(), new Uint8Array());
  assert.deepEqual(new ProtoWriter().message(2, new Uint8Array()).finish(), Uint8Array.of(0x12, 0));
  assert.deepEqual(new ProtoWriter().varint(1, 300).finish(), Uint8Array.of(0x08, 0xac, 0x02));
  assert.deepEqual(
    new ProtoWriter().varint(1, -1).finish(),
    Uint8Array.of(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
  );
  assert.deepEqual(new ProtoWriter().varint(1, 2n ** 63n - 1n).finish().length, 10);
  assert.deepEqual(new ProtoWriter().sfixed64(2, 1).finish(), Uint8Array.of(0x11, 1, 0, 0, 0, 0, 0, 0, 0));
  assert.deepEqual(lengthDelimited(Uint8Array.of(7, 8)), Uint8Array.of(2, 7, 8));
  // growth past the initial buffer keeps every byte
  const big = new Uint8Array(1000).fill(9);
  const out = new ProtoWriter().bytes(1, big).finish();
  assert.deepEqual(out.subarray(0, 3), Uint8Array.of(0x0a, 0xe8, 0x07));
  assert.deepEqual(out.subarray(3), big);
});
