/** geth's txpool_ namespace over HTTP: counts, contents by sender and nonce, one-line summaries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { artifacts } from '../../helpers/dev-chain.ts';
import { CHAIN_ID, GWEI, result, rpcNode, wallets } from './rpc-helpers.ts';

test('txpool_status, txpool_content, txpool_contentFrom and txpool_inspect show pending and queued txs as geth does', async (t) => {
  const { node, url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  await node.modules.engine.producer!.stop();
  const [a, b] = [wallets[0], wallets[1]];
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };
  const nonceA = Number(await call('eth_getTransactionCount', a.address, 'latest'));
  const nonceB = Number(await call('eth_getTransactionCount', b.address, 'latest'));
  const sendA = await a.signTransaction({
    ...fee,
    to: b.address,
    value: 7n,
    gasLimit: 21_000n,
    nonce: nonceA,
  });
  // a nonce gap: queued behind the missing nonceA + 1
  const gapA = await a.signTransaction({
    ...fee,
    to: b.address,
    value: 8n,
    gasLimit: 21_000n,
    nonce: nonceA + 2,
  });
  const createB = await b.signTransaction({
    ...fee,
    data: artifacts.Counter.bytecode,
    gasLimit: 300_000n,
    nonce: nonceB,
  });
  const hashes = [];
  for (const raw of [sendA, gapA, createB]) hashes.push(await call('eth_sendRawTransaction', raw));

  assert.deepEqual(await call('txpool_status'), { pending: '0x2', queued: '0x1' });
  const content = await call('txpool_content');
  assert.deepEqual(Object.keys(content.pending).sort(), [a.address, b.address].sort());
  assert.deepEqual(Object.keys(content.queued), [a.address]);
  assert.deepEqual(Object.keys(content.pending[a.address]), [String(nonceA)]);
  assert.deepEqual(Object.keys(content.queued[a.address]), [String(nonceA + 2)]);
  // each entry is the tx as eth_getTransactionByHash answers it while pending
  assert.deepEqual(
    content.pending[a.address][String(nonceA)],
    await call('eth_getTransactionByHash', hashes[0]),
  );
  assert.deepEqual(
    content.queued[a.address][String(nonceA + 2)],
    await call('eth_getTransactionByHash', hashes[1]),
  );
  assert.deepEqual(
    content.pending[b.address][String(nonceB)],
    await call('eth_getTransactionByHash', hashes[2]),
  );
  assert.deepEqual(await call('txpool_contentFrom', a.address.toLowerCase()), {
    pending: content.pending[a.address],
    queued: content.queued[a.address],
  });
  assert.deepEqual(await call('txpool_contentFrom', '0x' + '00'.repeat(20)), { pending: {}, queued: {} });
  assert.deepEqual(await call('txpool_inspect'), {
    pending: {
      [a.address]: { [String(nonceA)]: `${b.address}: 7 wei + 21000 gas × 10000000000 wei` },
      [b.address]: { [String(nonceB)]: 'contract creation: 0 wei + 300000 gas × 10000000000 wei' },
    },
    queued: { [a.address]: { [String(nonceA + 2)]: `${b.address}: 8 wei + 21000 gas × 10000000000 wei` } },
  });

  // mined: the pending txs leave; the one behind the gap stays queued
  node.modules.engine.producer!.start();
  for (let i = 0; i < 200 && (await call('txpool_status')).pending !== '0x0'; i++)
    await new Promise((r) => setTimeout(r, 25));
  assert.deepEqual(await call('txpool_status'), { pending: '0x0', queued: '0x1' });
});
