import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BytesMap } from '../../../src/util/bytes-map.ts';
import { ByteArena } from '../../../src/util/byte-arena.ts';
import { seededRandom } from '../../helpers/random.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('BytesMap behaves like a Map keyed by the bytes (equal contents, not identity) through many growths', () => {
  const r = seededRandom(3);
  const m = new BytesMap<number>();
  const model = new Map<string, number>();
  const order: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    // few distinct keys of many lengths (0 to 60): repeats, prefixes and same-length neighbours
    const len = Math.floor(r() * 61);
    const key = Uint8Array.from({ length: len }, () => Math.floor(r() * 3));
    const h = hex(key);
    if (!model.has(h)) order.push(h);
    model.set(h, i);
    m.set(key.slice(), i);
    const probe = Uint8Array.from({ length: Math.floor(r() * 61) }, () => Math.floor(r() * 3));
    assert.equal(m.get(probe), model.get(hex(probe)));
    assert.equal(m.has(probe), model.has(hex(probe)));
  }
  assert.equal(m.size, model.size);
  assert.deepEqual(
    [...m.entries()].map(([k, v]) => [hex(k), v]),
    order.map((h) => [h, model.get(h)]),
    'insertion order, last value',
  );
  assert.deepEqual(
    [...m.values()],
    order.map((h) => model.get(h)),
  );
  m.clear();
  assert.equal(m.size, 0);
  assert.equal(m.get(new Uint8Array(0)), undefined);
  m.set(Uint8Array.of(1), 5);
  assert.equal(m.get(Uint8Array.of(1)), 5);
});

test('ByteArena copies are exact, independent of the source, and do not overlap', () => {
  const arena = new ByteArena(256);
  const copies: [Uint8Array, Uint8Array][] = [];
  for (let n = 0; n < 200; n++) {
    const src = Uint8Array.from({ length: n % 90 }, (_, i) => (n * 7 + i) & 0xff);
    const copy = arena.copy(src);
    copies.push([src.slice(), copy]);
    src.fill(0); // the copy must not change with its source
  }
  for (const [expected, copy] of copies) {
    assert.equal(copy.length, expected.length);
    assert.deepEqual(copy, expected);
  }
});
