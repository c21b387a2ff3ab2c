import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockClock } from '../../../src/producer/block-clock.ts';

const at = (seconds: number, nanos = 0) => ({ seconds, nanos });

test('the wall clock, strictly after the previous block', () => {
  let now = 1_000_000;
  const clock = new BlockClock(() => now);
  assert.deepEqual(clock.take(undefined), at(1000));
  // a clock that stepped back still moves forward, by a millisecond
  now = 999_000;
  assert.deepEqual(clock.take(at(1000)), at(1000, 1_000_000));
});

test('evm_increaseTime moves every later block; the offset is returned in whole seconds', () => {
  const now = 1_000_000;
  const clock = new BlockClock(() => now);
  assert.equal(clock.increase(3600), 3600);
  assert.equal(clock.increase(60), 3660);
  assert.deepEqual(clock.take(at(999)), at(1000 + 3660));
  assert.equal(clock.nowMs(), now + 3_660_000);
});

test('a next timestamp is taken once, and the clock goes on from it', () => {
  let now = 1_000_000;
  const clock = new BlockClock(() => now);
  clock.setNext(5000);
  assert.equal(clock.next, 5000);
  assert.deepEqual(clock.take(at(1000)), at(5000));
  assert.equal(clock.next, undefined);
  now += 2000;
  assert.deepEqual(clock.take(at(5000)), at(5002));
});

test('an interval puts blocks that many seconds apart, for one block or until removed', () => {
  const now = 1_000_000;
  const clock = new BlockClock(() => now);
  assert.deepEqual(clock.take(at(1000), 10), at(1010));
  clock.setInterval(7);
  assert.deepEqual(clock.take(at(1010)), at(1017));
  assert.deepEqual(clock.take(at(1017)), at(1024));
  clock.setInterval(undefined);
  // the clock followed the blocks ahead of it: no step back to the wall clock
  assert.deepEqual(clock.take(at(1024)), at(1024, 1_000_000));
});

test('state() and restore(): the offset, the fixed next time and the interval come back as they were', () => {
  let now = 1_000_000;
  const clock = new BlockClock(() => now);
  clock.increase(100);
  clock.setNext(5_000);
  clock.setInterval(7);
  const saved = clock.state();
  clock.increase(86_400);
  clock.setInterval(undefined);
  clock.take(undefined);
  clock.restore(saved);
  assert.equal(clock.offsetSeconds, 100);
  assert.equal(clock.next, 5_000);
  assert.equal(clock.interval, 7);
  // the restored offset is added to the wall clock of now, not of the snapshot
  clock.restore({ ...saved, nextMs: undefined, intervalS: undefined });
  now += 10_000;
  assert.equal(clock.nowMs(), now + 100_000);
});
