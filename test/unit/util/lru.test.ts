import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from '../../../src/util/lru.ts';

test('an LRU with sizeOf is bounded by the bytes of its values, oldest out first', () => {
  const lru = new Lru<string, string>(100, 10, (v) => v.length);
  lru.set('a', 'xxxx');
  lru.set('b', 'xxxx');
  assert.equal(lru.byteSize, 8);
  lru.get('a'); // a is now the most recent
  lru.set('c', 'xxxx');
  assert.equal(lru.get('b'), undefined, 'the least recently used went');
  assert.equal(lru.get('a'), 'xxxx');
  assert.equal(lru.byteSize, 8);
  // replacing a value counts only the new one
  lru.set('a', 'x');
  assert.equal(lru.byteSize, 5);
  // a value larger than the bound is not kept
  lru.set('d', 'x'.repeat(11));
  assert.equal(lru.size, 0);
  assert.equal(lru.byteSize, 0);
});

test('an LRU without sizeOf is bounded by entries only', () => {
  const lru = new Lru<number, number>(2);
  lru.set(1, 1);
  lru.set(2, 2);
  lru.set(3, 3);
  assert.equal(lru.get(1), undefined);
  assert.equal(lru.size, 2);
});
