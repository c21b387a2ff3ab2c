import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, hexInto, toHex } from '../../../src/primitives/bytes.ts';

test('fromHex: with or without 0x, either case; odd lengths and non-hex characters are refused', () => {
  assert.deepEqual(fromHex('0x00ff7A'), Uint8Array.of(0, 255, 0x7a));
  assert.deepEqual(fromHex('0XaB'), Uint8Array.of(0xab));
  assert.deepEqual(fromHex('c0de'), Uint8Array.of(0xc0, 0xde));
  assert.deepEqual(fromHex('0x'), new Uint8Array(0));
  for (const bad of ['0xabc', 'a', '0xzz', '0x0g', 'é0', '0x 1', '0x٠٠'])
    assert.throws(() => fromHex(bad), { name: 'TypeError', message: `invalid hex string: ${bad}` });
});

test('hexInto decodes exactly out.length bytes from an offset and stops at a non-hex digit', () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const out = new Uint8Array(256);
  assert.equal(hexInto('xx' + toHex(bytes), 2, out), true);
  assert.deepEqual(out, bytes);
  assert.equal(hexInto('12g4', 0, new Uint8Array(2)), false);
});
