import assert from 'node:assert/strict';
import { test } from 'node:test';
import { haltedEngine } from '../../../src/chain/sync-status.ts';
import { ATTEMPT_BOUND_MS, ProducerHealth, stallBoundMs } from '../../../src/producer/health.ts';

/** A ProducerHealth on a clock the test moves. */
function health(height = 5) {
  const clock = { now: 1_000_000 };
  const h = new ProducerHealth({ stallAfterMs: 2000, latestHeight: () => height, now: () => clock.now });
  return { h, clock };
}

test('the stall bound is five block intervals, at least a second', () => {
  assert.equal(stallBoundMs(400), 2000);
  assert.equal(stallBoundMs(50), 1000);
  assert.equal(stallBoundMs(0), 1000);
});

test('a producer that keeps failing is halted once the bound passes without a commit; a commit clears it', () => {
  const { h, clock } = health();
  h.attempting(6);
  h.failed(6, 'refusing to sign height 5');
  clock.now += 1999;
  assert.equal(h.syncStatus().halted, false, 'within the bound a failure is not a halt');
  h.attempting(6);
  h.failed(6, 'refusing to sign height 5');
  clock.now += 1;
  const s = h.syncStatus();
  assert.deepEqual(
    { ...s, reason: undefined },
    {
      catchingUp: false,
      halted: true,
      reason: undefined,
      latestHeight: 5,
      bestKnownHeight: 5,
    },
  );
  assert.equal(
    s.reason,
    `no block committed since ${new Date(1_000_000).toISOString()}: producing block 6 failed 2 times, last: refusing to sign height 5`,
  );

  h.attempting(6);
  h.committed();
  assert.equal(h.syncStatus().halted, false);
  assert.equal(h.syncStatus().reason, undefined);
});

test('an idle producer is not halted however long since its last block; failures are, once they have lasted the bound', () => {
  const { h, clock } = health();
  // idle (no empty blocks, nothing to do) for a long time: not failing, not halted
  clock.now += 60_000;
  assert.equal(h.syncStatus().halted, false);
  h.attempting(6);
  h.committed();
  clock.now += 60_000;
  h.attempting(7);
  clock.now += 500;
  h.failed(7, 'boom');
  // the quiet minute before does not count: the producer had nothing to do
  assert.equal(h.syncStatus().halted, false);
  clock.now += 1000;
  h.attempting(7);
  h.failed(7, 'boom');
  assert.equal(h.syncStatus().halted, false);
  // the bound counts from the start of the first failed attempt
  clock.now += 500;
  assert.equal(h.syncStatus().halted, true);
  assert.match(h.syncStatus().reason!, /producing block 7 failed 2 times, last: boom$/);
});

test('an attempt still running is not a halt past the failure bound (a large block takes time); one that never finishes is, after ATTEMPT_BOUND_MS', () => {
  const { h, clock } = health();
  h.attempting(6);
  clock.now += 2000; // the failure bound
  assert.equal(h.syncStatus().halted, false);
  clock.now += ATTEMPT_BOUND_MS - 2000 - 1;
  assert.equal(h.syncStatus().halted, false);
  clock.now += 1;
  assert.match(h.syncStatus().reason!, /producing block 6 has not finished after 10 s$/);
});

test('a restarted producer does not count the time it was stopped; a node with no engine is halted from the start', () => {
  const { h, clock } = health();
  h.attempting(6);
  h.failed(6, 'boom');
  clock.now += 10_000;
  assert.equal(h.syncStatus().halted, true);
  h.started();
  assert.equal(h.syncStatus().halted, false);
  h.attempting(6);
  h.failed(6, 'boom');
  assert.equal(h.syncStatus().halted, false);

  const none = haltedEngine(() => 3, 'not the genesis validator').syncStatus();
  assert.deepEqual(none, {
    catchingUp: false,
    halted: true,
    reason: 'not the genesis validator',
    latestHeight: 3,
    bestKnownHeight: 3,
  });
});
