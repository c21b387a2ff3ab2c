import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeStateSync } from '../../../src/chain/sync-status.ts';
import { RestoreProgress, STALL_MS } from '../../../src/cometbft/restore-progress.ts';

test('a restore reports what it waits for; no chunk for three chunk request timeouts gives it up with the remedy', () => {
  let now = 0;
  const p = new RestoreProgress({ now: () => now });
  assert.equal(p.status(), undefined, 'no state sync: nothing to report');
  p.begin();
  now += 7_000;
  assert.deepEqual(p.status(), { phase: 'discovering', seconds: 7 });
  assert.deepEqual(p.check(), {}, 'discovering has no stall rule of its own');

  p.accepted(60, 3);
  now += 2_000;
  p.chunkReceived(0);
  now += 12_000;
  assert.deepEqual(p.status(), {
    phase: 'fetching',
    seconds: 14,
    snapshotHeight: 60,
    chunks: 3,
    chunksReceived: 1,
    waitingForChunk: 1,
    secondsSinceLastChunk: 12,
    missingAnswers: 0,
  });
  assert.equal(
    describeStateSync(p.status()!),
    'state sync: waiting for chunk 1 of the snapshot of height 60 (1/3 received, 12 s since the last chunk)',
  );
  // one waiting line per chunk request timeout without a chunk
  assert.equal(p.check().waiting?.waitingForChunk, 1);
  assert.deepEqual(p.check(), {});
  // a chunk that fails its hash check is a provider answering: the clock starts again
  p.chunkRefused();
  assert.equal(p.status()?.secondsSinceLastChunk, 0);
  assert.equal(p.status()?.chunksReceived, 1);
  now += 12_000;
  p.missingAnswer(60);
  p.missingAnswer(50); // another snapshot's: not this one's
  now += STALL_MS - 12_000 - 1;
  assert.equal(p.check().stalled, undefined);
  now += 1;
  assert.equal(
    p.check().stalled,
    'state sync stalled: no chunk of the snapshot of height 60 for 30 s (waiting for chunk 1, 1/3 received): ' +
      'its providers answered that they no longer have it (pruned by their [state-sync] snapshot-keep-recent, ' +
      'or deleted). Raise snapshot-keep-recent on the nodes that provide snapshots, or start this node again ' +
      'to discover newer snapshots',
  );
});

test('a snapshot given up goes back to discovering; the import is not a stall; a finished restore reports nothing', () => {
  let now = 0;
  const p = new RestoreProgress({ now: () => now });
  p.begin();
  p.accepted(60, 2);
  p.rejected(50); // CometBFT gave up another snapshot
  assert.equal(p.status()?.phase, 'fetching');
  p.rejected(60);
  assert.equal(p.status()?.phase, 'discovering');
  p.accepted(70, 2);
  p.chunkReceived(1);
  p.chunkReceived(1);
  assert.equal(p.status()?.chunksReceived, 1);
  assert.equal(p.status()?.waitingForChunk, 0);
  p.chunkReceived(0);
  p.importing();
  now += 10 * STALL_MS;
  assert.deepEqual(p.check(), {});
  assert.equal(
    describeStateSync(p.status()!),
    'state sync: importing the snapshot of height 70 (2 chunks, 300 s)',
  );
  p.finished();
  assert.equal(p.status(), undefined);
});
