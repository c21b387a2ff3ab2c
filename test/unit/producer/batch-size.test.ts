import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BATCH_HISTORY, BatchSize } from '../../../src/producer/batch-size.ts';

test('one tx is a whole batch until a block carried more; none never is', () => {
  const b = new BatchSize();
  assert.equal(b.complete(0), false);
  assert.equal(b.complete(1), true);
  b.record(0); // an empty block (the initial one) asks for no more than one
  assert.equal(b.complete(1), true);
  b.record(1);
  assert.equal(b.complete(1), true, 'a script sending tx after tx: its next tx starts the block');
});

test('the batch is the largest recent block, so senders split over two blocks come back together', () => {
  const b = new BatchSize();
  b.record(8);
  b.record(5);
  assert.equal(b.complete(5), false, 'not the last block alone');
  assert.equal(b.complete(7), false);
  assert.equal(b.complete(8), true);
  assert.equal(b.complete(9), true);
});

test('a batch size is forgotten after BATCH_HISTORY smaller blocks', () => {
  const b = new BatchSize();
  b.record(8);
  for (let i = 0; i < BATCH_HISTORY - 1; i++) b.record(3);
  assert.equal(b.complete(3), false);
  b.record(3);
  assert.equal(b.complete(3), true);
});
