/**
 * Differential block runs: generated blocks (a fixed seed) on revm and on ethereumjs must give the
 * same receipts, rejections, state changes, address-index appearances and app hashes
 * (test/helpers/evm-diff/). The long campaign is `npm run bench -- evm-diff <blocks> [seed]`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nativeSimulator } from '../../../src/execution/simulation/native-binding.ts';
import { runCampaign } from '../../../test/helpers/evm-diff/campaign.ts';

/** The CI seed and length: every kind of tx at least once, ~600 txs. */
const SEED = 1;
const BLOCKS = 26;

/** What each kind must have done at least once (a generator that stops making it fails here). */
const EXPECTED: Record<string, 'ok' | 'failed' | 'rejected' | 'unpaid'> = {
  transfer: 'ok',
  'fresh-key-first-tx': 'ok',
  'fresh-key-cannot-pay': 'unpaid',
  'eip7702-set': 'ok',
  'eip7702-clear': 'ok',
  'eip7702-call-delegated': 'ok',
  create2: 'ok',
  'create-and-selfdestruct': 'ok',
  'selfdestruct-old': 'ok',
  'revert-reason': 'failed',
  'out-of-gas': 'failed',
  'invalid-opcode': 'failed',
  'deploy-out-of-gas': 'failed',
  'pair-swap': 'ok',
  'pair-swap-k-violated': 'failed',
  'proxy-call': 'ok',
  'proxy-revert': 'failed',
  'reject-nonce-too-high': 'rejected',
  'reject-nonce-too-low': 'rejected',
  'reject-fee-cap-below-base-fee': 'rejected',
  'reject-over-block-gas': 'rejected',
  'reject-intrinsic-gas': 'rejected',
  'cannot-pay': 'unpaid',
};

test('revm and ethereumjs run generated blocks alike: receipts, rejections, state changes, appearances, app hashes', async (t) => {
  const native = nativeSimulator();
  if (typeof native === 'string') {
    t.skip(`the native EVM is ${native}: build it with \`npm run build:native-sim\` to compare the engines`);
    return;
  }
  const r = await runCampaign({ native, seed: SEED, blocks: BLOCKS });
  t.diagnostic(
    `${r.blocks} blocks, ${r.txs} txs: ${r.included} included (${r.failedBeforeExecution} failed before execution), ${r.rejected} rejected`,
  );
  for (const [id, k] of r.tolerated) t.diagnostic(`known difference ${id} x${k.count}: ${k.first}`);
  assert.deepEqual(r.missing, [], 'every kind of tx ran');
  for (const [kind, outcome] of Object.entries(EXPECTED))
    assert.ok((r.kinds.get(kind)?.[outcome] ?? 0) > 0, `a ${kind} tx ended ${outcome}`);
  assert.ok(r.txs >= 300, `${r.txs} txs`);
});
