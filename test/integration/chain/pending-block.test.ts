/**
 * The pending block over a real node's chain and pools (lmdb stores, no block produced while the test
 * runs): computed once per (latest height, candidates), with the pending txs' writes and the pending
 * block's context.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingBlocks } from '../../../src/chain/pending-block.ts';
import { readBaseFee } from '../../../src/chain/block-execution.ts';
import { devWallets, signed } from '../../helpers/dev-chain.ts';
import { makeHome, startNode } from '../../helpers/node.ts';

const GWEI = 1_000_000_000n;
const fees = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21_000n, type: 2 };

test('the pending block is the pools applied to the latest state, kept until the pool or the height changes', async (t) => {
  // a block only an hour after a tx arrives: the pool keeps what the test submits
  const node = await startNode(makeHome(t), {
    'consensus.timeout-commit': '1h',
    'consensus.create-empty-blocks': 'false',
  });
  t.after(() => node.stop());
  const { chain, mempool, cosmosPool } = node.modules;
  const pending = new PendingBlocks(chain, { mempool, cosmosPool });

  const empty = await pending.current();
  assert.deepEqual(empty, { parentHeight: 0, execution: undefined });

  const [alice, bob] = devWallets;
  await mempool.checkTx(await signed(alice, { ...fees, nonce: 0, to: bob.address, value: 5n }));
  const one = await pending.current();
  assert.equal(one.parentHeight, 0);
  assert.equal(one.execution?.height, 1);
  assert.equal(one.execution?.txCount, 1);
  assert.ok(one.execution!.writes.size > 0);
  assert.equal(await pending.current(), one, 'the same pool on the same height: the kept block');

  await mempool.checkTx(await signed(alice, { ...fees, nonce: 1, to: bob.address, value: 5n }));
  const two = await pending.current();
  assert.notEqual(two, one);
  assert.equal(two.execution?.txCount, 2);
  // the pending block pays the base fee stored after the latest block
  assert.equal(two.execution!.baseFee, readBaseFee(chain.state, chain.feeParams));
  assert.equal(chain.latestHeight, 0, 'nothing was committed');

  // once a block takes both, the pending state is the latest again
  const { engine } = node.modules;
  await engine.producer!.produce();
  assert.deepEqual(await pending.current(), { parentHeight: 1, execution: undefined });
});
