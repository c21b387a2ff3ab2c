import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entriesUnder, prefixEnd, type StateRanges } from '../../../src/app/state-access.ts';

const b = (...bytes: number[]) => Uint8Array.from(bytes);

test('prefixEnd: the first key after every key under the prefix, carrying over trailing 0xff bytes', () => {
  assert.deepEqual(prefixEnd(b(1, 2, 3)), b(1, 2, 4));
  assert.deepEqual(prefixEnd(b(1, 2, 0xff)), b(1, 3));
  assert.deepEqual(prefixEnd(b(1, 0xff, 0xff)), b(2));
  assert.equal(prefixEnd(b(0xff, 0xff)), undefined);
});

test('entriesUnder lists the keys under a prefix whose last byte is 0xff (an address ending in ff)', async () => {
  const keys = [b(1, 0xfe, 9), b(1, 0xff), b(1, 0xff, 0), b(1, 0xff, 0xff, 7), b(2, 0)];
  const sorted = keys.map((k) => ({ key: k, value: b(0) })).sort((x, y) => Buffer.compare(x.key, y.key));
  const state: StateRanges = {
    async *range(_store, start, end) {
      for (const e of sorted)
        if (Buffer.compare(e.key, start) >= 0 && (!end || Buffer.compare(e.key, end) < 0)) yield e;
    },
  };
  const under = async (...prefix: number[]) =>
    (await entriesUnder(state, 'bank', b(...prefix))).map((e) => [...e.key]);
  assert.deepEqual(await under(1, 0xff), [
    [1, 0xff],
    [1, 0xff, 0],
    [1, 0xff, 0xff, 7],
  ]);
  assert.deepEqual(await under(1, 0xfe), [[1, 0xfe, 9]]);
  assert.deepEqual(await under(0xff), []);
});
