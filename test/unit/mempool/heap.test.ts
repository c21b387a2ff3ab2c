import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Heap, IndexedHeap } from '../../../src/mempool/heap.ts';
import { SeenCache } from '../../../src/mempool/seen-cache.ts';

interface Item {
  v: number;
  id: number;
  heapIndex: number;
}

test('IndexedHeap: random push/delete/pop agrees with a sorted list', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const less = (a: Item, b: Item) => a.v < b.v || (a.v === b.v && a.id < b.id);
  const heap = new IndexedHeap<Item>(less);
  let model: Item[] = [];
  let id = 0;
  for (let step = 0; step < 5000; step++) {
    const r = random();
    if (r < 0.5 || model.length === 0) {
      const item = { v: Math.floor(random() * 100), id: id++, heapIndex: -1 };
      heap.push(item);
      model.push(item);
    } else if (r < 0.75) {
      const victim = model[Math.floor(random() * model.length)];
      assert.ok(heap.has(victim));
      assert.equal(heap.delete(victim), true);
      assert.equal(heap.delete(victim), false);
      assert.equal(victim.heapIndex, -1);
      model = model.filter((x) => x !== victim);
    } else {
      model.sort((a, b) => (less(a, b) ? -1 : 1));
      const top = heap.pop()!;
      assert.equal(top, model.shift());
      assert.equal(top.heapIndex, -1);
    }
    assert.equal(heap.size, model.length);
  }
});

test('Heap heapifies its initial items', () => {
  const heap = new Heap<number>((a, b) => a > b, [3, 9, 1, 7, 5]);
  const out: number[] = [];
  for (let x = heap.pop(); x !== undefined; x = heap.pop()) out.push(x);
  assert.deepEqual(out, [9, 7, 5, 3, 1]);
});

test('SeenCache is an LRU of the given capacity; 0 keeps nothing', () => {
  const cache = new SeenCache(2);
  cache.add('a');
  cache.add('b');
  cache.add('a'); // refresh a: b is now the oldest
  cache.add('c');
  assert.deepEqual(
    ['a', 'b', 'c'].map((k) => cache.has(k)),
    [true, false, true],
  );
  assert.equal(cache.size, 2);
  const off = new SeenCache(0);
  off.add('a');
  assert.equal(off.has('a'), false);
  assert.throws(() => new SeenCache(-1), RangeError);
});
