/**
 * A short chaos campaign with a fixed seed: 4 validators and 2 RPC nodes (each in its own network
 * namespace when the test runs as root) under a mixed load of EVM transfers, ERC20 transfers and
 * Cosmos bank sends, while nodes are killed, paused, partitioned (one node, then a minority, then
 * one node long enough to be seen behind) and rolled back. Every invariant of
 * test/helpers/chaos/invariants.ts is checked while it runs and at the end. A tx recorded as
 * confirmed that no node has is planted: the end check must report it, so the check can fail.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCampaign } from '../helpers/chaos/campaign.ts';
import { NetnsLab } from '../helpers/chaos/netns.ts';
import { cometbftOrSkip } from '../helpers/network.ts';

test('chaos: kills, a pause, partitions and a rollback under load keep one chain, lose no confirmed tx, answer reads alike and never claim to be current while behind', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const noPartitions = NetnsLab.unavailable();
  if (noPartitions) t.diagnostic(`partitions left out of this run: ${noPartitions}`);
  const r = await runCampaign({
    minutes: 1.5,
    seed: 7,
    steps: [
      { kind: 'kill', holdSeconds: 4 },
      { kind: 'partition-one', holdSeconds: 8 },
      { kind: 'pause', holdSeconds: 6 },
      { kind: 'rollback' },
      { kind: 'partition-minority', holdSeconds: 8 },
      // long enough for the engine's stall detection: the node must say it is behind
      { kind: 'partition-one', holdSeconds: 30 },
      { kind: 'kill', holdSeconds: 3 },
    ],
    everySeconds: [3, 6],
    overlap: 2,
    plantMissingTx: true,
    log: (line) => t.diagnostic(line),
  });
  const planted = r.violations.filter((v) => v.detail.includes('ee'.repeat(32)));
  const real = r.violations.filter((v) => !planted.includes(v));
  assert.deepEqual(real, [], 'no invariant may be violated');
  assert.deepEqual(r.unexpectedExits, [], 'no node may exit on its own');
  // the positive control: the planted tx is reported missing on every node
  assert.equal(planted.length, 6, JSON.stringify(planted));
  for (const kind of [
    'kill',
    'pause',
    'rollback',
    ...(noPartitions ? [] : ['partition-one', 'partition-minority']),
  ])
    assert.ok(
      (r.perturbations[kind] ?? 0) >= 1,
      `${kind} was carried out: ${JSON.stringify(r.perturbations)}`,
    );
  for (const kind of ['transfer', 'erc20', 'bank'])
    assert.ok((r.load.confirmed[kind] ?? 0) > 0, `${kind} txs were confirmed: ${JSON.stringify(r.load)}`);
  assert.equal(r.heightsChecked, r.finalHeight);
  assert.ok(r.checks.reads > 0, 'reads were compared across nodes');
  if (!noPartitions) assert.ok(r.checks.health > 0, 'a node was seen behind and its health signals checked');
  assert.ok(r.catchUps > 0);
  t.diagnostic(
    `height ${r.finalHeight}; longest gap ${r.longestGapMs} ms; slowest catch-up ${JSON.stringify(r.slowestCatchUp)}; perturbations ${JSON.stringify(r.perturbations)}; load ${JSON.stringify(r.load)}`,
  );
});
