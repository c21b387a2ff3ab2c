import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blake3Xof, blake3_256, sha256, SHA256_EMPTY } from '../../../src/crypto/hash.ts';
import { fromHex, toHex, utf8 } from '../../../src/primitives/bytes.ts';
import { readUvarint, uvarint, zigzag } from '../../../src/codec/varint.ts';

test('sha256 matches the FIPS 180-2 "abc" vector and the empty-string hash', () => {
  assert.equal(
    toHex(sha256(utf8('abc'))),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
  assert.equal(toHex(SHA256_EMPTY), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});

test('blake3 matches the reference empty-input hash and its XOF extends the 32-byte output', () => {
  const empty = 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262';
  assert.equal(toHex(blake3_256(new Uint8Array(0))), empty);
  const xof = blake3Xof(new Uint8Array(0), 64);
  assert.equal(xof.length, 64);
  assert.equal(toHex(xof.subarray(0, 32)), empty);
});

test('uvarint and zig-zag varints encode like Go binary.PutUvarint / PutVarint', () => {
  assert.equal(toHex(uvarint(0)), '00');
  assert.equal(toHex(uvarint(300)), 'ac02');
  assert.equal(toHex(zigzag(0)), '00');
  assert.equal(toHex(zigzag(1)), '02');
  assert.equal(toHex(zigzag(-1)), '01');
  assert.equal(toHex(zigzag(64)), '8001');
  assert.deepEqual(readUvarint(fromHex('ac02ff'), 0), [300, 2]);
  const big = 2 ** 40 + 7;
  assert.deepEqual(readUvarint(uvarint(big), 0), [big, uvarint(big).length]);
  assert.throws(() => readUvarint(fromHex('80'), 0), RangeError);
});

test('the unrolled BLAKE3 XOF equals @noble/hashes for every input length up to two chunks', async () => {
  const { blake3 } = await import('@noble/hashes/blake3.js');
  const { blake3XofFast } = await import('../../../src/crypto/blake3-xof.ts');
  for (let n = 0; n <= 2100; n += n < 1100 ? 1 : 37) {
    const x = new Uint8Array(n).map((_, i) => (i * 131 + n * 7) & 255);
    for (const len of [32, 100, 2048])
      assert.equal(toHex(blake3XofFast(x, len)), toHex(blake3(x, { dkLen: len })), `len ${n} out ${len}`);
  }
});

test('BLAKE3-256 on the unrolled compression equals @noble/hashes for every input length up to two chunks and past them', async () => {
  const { blake3 } = await import('@noble/hashes/blake3.js');
  for (let n = 0; n <= 2200; n += n < 960 ? 61 : 1) {
    const x = new Uint8Array(n).map((_, i) => (i * 151 + n * 13 + 5) & 255);
    assert.equal(toHex(blake3_256(x)), toHex(blake3(x)), `length ${n}`);
  }
  // the flatkv root's input: a 2048-byte lattice, twice in a row (no state kept between calls)
  const lattice = new Uint8Array(2048).map((_, i) => (i * 7) & 255);
  assert.equal(toHex(blake3_256(lattice)), toHex(blake3(lattice)));
  assert.equal(toHex(blake3_256(lattice)), toHex(blake3(lattice)));
});
