import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StateOverlay } from '../../../src/state/overlay.ts';

const b = (...xs: number[]) => Uint8Array.from(xs);
const baseMap = new Map<string, Uint8Array>([['s:01', b(9)]]);
const base = {
  get: (store: string, key: Uint8Array) => baseMap.get(`${store}:${Buffer.from(key).toString('hex')}`),
};

test('reads fall through to the base until written; deletes shadow the base', () => {
  const o = new StateOverlay(base);
  assert.deepEqual(o.get('s', b(1)), b(9));
  o.set('s', b(1), b(7));
  assert.deepEqual(o.get('s', b(1)), b(7));
  o.delete('s', b(1));
  assert.equal(o.get('s', b(1)), undefined);
  assert.equal(o.get('t', b(1)), undefined, 'stores are separate');
});

test('nested checkpoints: revert undoes only its own writes; an inner commit stays revertible by the outer', () => {
  const o = new StateOverlay(base);
  o.set('s', b(2), b(1));
  o.checkpoint();
  o.set('s', b(2), b(2));
  o.checkpoint();
  o.set('s', b(3), b(3));
  o.set('s', b(1), undefined);
  o.revert();
  assert.deepEqual(o.get('s', b(2)), b(2));
  assert.equal(o.get('s', b(3)), undefined);
  assert.deepEqual(o.get('s', b(1)), b(9));
  o.checkpoint();
  o.set('s', b(4), b(4));
  o.commit();
  assert.deepEqual(o.get('s', b(4)), b(4));
  o.revert();
  assert.deepEqual(o.get('s', b(2)), b(1));
  assert.equal(o.get('s', b(4)), undefined);
  assert.equal(o.depth, 0);
  assert.throws(() => o.revert(), /revert without a checkpoint/);
});

test('changes come per store in name order with keys sorted, deletes included', () => {
  const o = new StateOverlay(base);
  o.set('z', b(1), b(1));
  o.set('a', b(5), b(5));
  o.set('a', b(1, 2), b(2));
  o.set('s', b(1), undefined);
  assert.deepEqual(o.changes(), [
    {
      store: 'a',
      writes: [
        { key: b(1, 2), value: b(2) },
        { key: b(5), value: b(5) },
      ],
    },
    { store: 's', writes: [{ key: b(1), value: undefined }] },
    { store: 'z', writes: [{ key: b(1), value: b(1) }] },
  ]);
});

test('a key left as the base holds it is no change, however often it was written', () => {
  const o = new StateOverlay(base);
  o.set('s', b(1), b(9)); // the base's value, written again
  o.set('a', b(7), undefined); // a delete of a key the base does not hold
  o.set('a', b(8), b(1));
  o.set('a', b(8), undefined); // set, then deleted again
  o.set('s', b(2), b(3));
  o.set('s', b(2), b(4));
  assert.deepEqual(o.changes(), [{ store: 's', writes: [{ key: b(2), value: b(4) }] }]);
  // a write that changes the value is one
  o.set('s', b(1), b(8));
  assert.deepEqual(o.changes()[0].writes[0], { key: b(1), value: b(8) });
});

test('bufferedKeys finds buffered keys by prefix only in the given store', () => {
  const o = new StateOverlay(base);
  o.set('a', b(1, 2), b(2));
  o.set('a', b(1, 3), undefined);
  o.set('a', b(2, 1), b(1));
  o.set('b', b(1, 4), b(1));
  const keys = o
    .bufferedKeys('a', b(1))
    .map((k) => Buffer.from(k).toString('hex'))
    .sort();
  assert.deepEqual(keys, ['0102', '0103']);
});

test('over a stable base each key is read once (absent keys too); other bases are read every time', () => {
  const reads: string[] = [];
  const reader = (stable: boolean) => ({
    stable,
    get: (store: string, key: Uint8Array) => {
      reads.push(`${store}:${key[0]}`);
      return base.get(store, key);
    },
  });
  const o = new StateOverlay(reader(true));
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(o.get('s', b(1)), b(9));
    assert.equal(o.get('s', b(2)), undefined);
  }
  o.checkpoint();
  o.set('s', b(1), b(5));
  o.revert();
  assert.deepEqual(o.get('s', b(1)), b(9), 'a reverted write falls back to the kept read');
  assert.deepEqual(reads, ['s:1', 's:2']);

  reads.length = 0;
  const plain = new StateOverlay(reader(false));
  plain.get('s', b(1));
  plain.get('s', b(1));
  assert.deepEqual(reads, ['s:1', 's:1']);
});

test('slot keys keep byte order and prefixes: bufferedKeys by prefix, high bytes included', () => {
  const o = new StateOverlay(base);
  o.set('s', b(0xff, 0x00, 1), b(1));
  o.set('s', b(0xff, 0x00), b(2));
  o.set('s', b(0xff, 0x01), b(3));
  o.set('s', b(0x7f, 0xff), b(4));
  o.set('t', b(0xff, 0x00, 2), b(5));
  assert.deepEqual(
    o.bufferedKeys('s', b(0xff, 0x00)).sort((x, y) => Buffer.compare(x, y)),
    [b(0xff, 0x00), b(0xff, 0x00, 1)],
  );
  assert.deepEqual(
    o.changes()[0].writes.map((w) => [...w.key]),
    [
      [0x7f, 0xff],
      [0xff, 0x00],
      [0xff, 0x00, 1],
      [0xff, 0x01],
    ],
  );
});
