/**
 * Differential block runs: generated blocks (a fixed seed) on revm and on ethereumjs must give the
 * same receipts, rejections, state changes, address-index appearances and app hashes
 * (test/helpers/evm-diff/). The long campaign is `npm run bench -- evm-diff <blocks> [seed]`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nativeSimulator, type NativeSimulator } from '../../../src/execution/simulation/native-binding.ts';
import { runCampaign } from '../../../test/helpers/evm-diff/campaign.ts';
import { BlockDifference } from '../../../test/helpers/evm-diff/harness.ts';

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
    t.skip(`no revm to compare with ethereumjs: the native EVM is ${native}`);
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

test('a difference fails the run, naming the height, tx, kind, field and both values', async (t) => {
  const native = nativeSimulator();
  if (typeof native === 'string') {
    t.skip(`no revm to compare with ethereumjs: the native EVM is ${native}`);
    return;
  }
  // revm's answer for the block's fifth tx claims one more gas than it used
  let calls = 0;
  const off = Object.create(native) as NativeSimulator;
  off.execute = (...args) => {
    const answer = native.execute(...args);
    if (typeof answer === 'string' || ++calls !== 5) return answer;
    const bumped = answer.slice();
    const v = new DataView(bumped.buffer);
    v.setBigUint64(1, v.getBigUint64(1) + 1n);
    return bumped;
  };
  await assert.rejects(runCampaign({ native: off, seed: SEED, blocks: 1 }), (err: unknown) => {
    assert.ok(err instanceof BlockDifference);
    assert.match(
      err.message,
      /^block 1, tx 4 \(setup-deploy, 0x[0-9a-f]{64}\): gasUsed differs: revm=(\d+) ethereumjs=(\d+)$/,
    );
    const [, a, b] = /revm=(\d+) ethereumjs=(\d+)/.exec(err.message)!;
    assert.equal(BigInt(a), BigInt(b) + 1n);
    return true;
  });
});
