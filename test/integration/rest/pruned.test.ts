/** A height the State Store has pruned is refused with the earliest height it still serves. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { get, startRestNode } from './helpers.ts';

test('x-cosmos-block-height below the State Store earliest version is 400 code 3', async (t) => {
  const n = await startRestNode(t, [], {
    'state-store.ss-keep-recent': '2',
    'state-store.ss-prune-interval': '1',
  });
  const path = `/cosmos/bank/v1beta1/balances/${toAccAddress(DEV_ACCOUNTS[0].cosmosAddress)}`;
  // Wait until pruning has moved the earliest readable height past 1.
  const earliest = await until(() => {
    const e = Math.max(0, n.node.modules.ss.earliestVersion() - 1);
    return e > 1 ? e : undefined;
  }, 10_000);
  const r = await get(n.url, path, { 'x-cosmos-block-height': '1' });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 3);
  assert.match(
    r.body.message,
    /^failed to load state at height 1; version does not exist \(earliest height: \d+\)$/,
  );
  const kept = Number(/earliest height: (\d+)/.exec(r.body.message)![1]);
  assert.ok(kept >= earliest, `${kept} >= ${earliest}`);
  // Pruning keeps running (every second), so only the latest height is certain to stay readable.
  const latest = String(n.node.modules.chain.latestHeight);
  const ok = await get(n.url, path, { 'x-cosmos-block-height': latest });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.headers.get('x-cosmos-block-height'), latest);
  assert.deepEqual(ok.body.balances, [{ denom: 'uchain', amount: '10000000000' }]);
});
