import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareBytes, sortByBytes } from '../../../src/primitives/bytes.ts';
import { seededRandom } from '../../helpers/random.ts';

test('sortByBytes orders like a compareBytes sort: random keys, shared prefixes, keys that are prefixes of others, zero bytes', () => {
  const r = seededRandom(11);
  const byte = () => Math.floor(r() * 256);
  const items: { key: Uint8Array; id: number }[] = [];
  for (let i = 0; i < 5000; i++) {
    const kind = i % 4;
    const key =
      kind === 0
        ? Uint8Array.from({ length: 1 + Math.floor(r() * 40) }, byte) // random, any length
        : kind === 1
          ? Uint8Array.from([0x73, 1, 2, ...Array.from({ length: Math.floor(r() * 6) }, byte)]) // one long run
          : kind === 2
            ? Uint8Array.from({ length: Math.floor(r() * 6) }, () => (r() < 0.7 ? 0 : 1)) // zero padding ties
            : Uint8Array.from({ length: 4 }, byte);
    items.push({ key, id: i });
  }
  const expected = [...items].sort((a, b) => compareBytes(a.key, b.key) || a.id - b.id);
  const got = sortByBytes([...items], (x) => x.key);
  assert.deepEqual(
    got.map((x) => Buffer.from(x.key).toString('hex')),
    expected.map((x) => Buffer.from(x.key).toString('hex')),
  );
  assert.deepEqual(
    sortByBytes([], (x: { key: Uint8Array }) => x.key),
    [],
  );
});
