/**
 * eth_getTransactionBySenderAndNonce over HTTP against an in-process node: several senders whose
 * txs land in many blocks (some holding two of one sender's), each answered as eth_getTransactionByHash.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak256 } from 'ethers';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, wallets } from './rpc-helpers.ts';

test('eth_getTransactionBySenderAndNonce', async (t) => {
  const { url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const senders = wallets.slice(0, 3);
  const sign = (s: number, nonce: number) =>
    senders[s].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce,
      to: wallets[4].address,
      value: 1n,
      gasLimit: 21000,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
  const hashes: string[][] = [[], [], []];
  const nonces = [0, 0, 0];
  // one block per round, each with a different mix of senders
  const rounds = [[0], [1], [0, 2], [2], [0, 1], [1], [0], [2, 1], [0], [1]];
  for (const round of rounds) {
    const raws = await Promise.all(round.map((s) => sign(s, nonces[s]++)));
    round.forEach((s, i) => hashes[s].push(keccak256(raws[i])));
    await Promise.all(raws.map((raw) => call('eth_sendRawTransactionSync', raw, 5000)));
  }
  // two of one sender's txs in one block
  const both = [await sign(0, nonces[0]++), await sign(0, nonces[0]++)];
  hashes[0].push(...both.map((r) => keccak256(r)));
  await call('eth_sendRawTransaction', both[0]);
  await call('eth_sendRawTransactionSync', both[1], 5000);

  await t.test('every used nonce of every sender: the tx eth_getTransactionByHash answers', async () => {
    const blocks = new Set<string>();
    for (let s = 0; s < senders.length; s++) {
      for (let n = 0; n < hashes[s].length; n++) {
        const got = await call('eth_getTransactionBySenderAndNonce', senders[s].address, hex(n));
        assert.deepEqual(got, await call('eth_getTransactionByHash', hashes[s][n]), `sender ${s} nonce ${n}`);
        blocks.add(got.blockNumber);
      }
    }
    assert.ok(blocks.size >= rounds.length, `spread over ${blocks.size} blocks`);
    const [a, b] = await Promise.all(hashes[0].slice(-2).map((h) => call('eth_getTransactionByHash', h)));
    assert.equal(a.blockNumber, b.blockNumber, 'two txs of one sender in one block');
  });

  await t.test('null for a nonce not used yet and for an account that never sent', async () => {
    assert.equal(await call('eth_getTransactionBySenderAndNonce', senders[0].address, hex(nonces[0])), null);
    assert.equal(await call('eth_getTransactionBySenderAndNonce', senders[1].address, '0x64'), null);
    assert.equal(await call('eth_getTransactionBySenderAndNonce', wallets[4].address, '0x0'), null);
  });

  await t.test('checks its parameters', async () => {
    assert.equal((await error(url, 'eth_getTransactionBySenderAndNonce', [senders[0].address])).code, -32602);
    assert.equal((await error(url, 'eth_getTransactionBySenderAndNonce', ['0x12', '0x0'])).code, -32602);
  });
});

test('a nonce used below the earliest state is still answered: the index needs no state', async (t) => {
  const { node, url } = await rpcNode(t, {
    'state-store.ss-keep-recent': '2',
    'state-store.ss-prune-interval': '1',
  });
  const raw = await wallets[0].signTransaction({
    chainId: CHAIN_ID,
    type: 2,
    nonce: 0,
    to: wallets[4].address,
    value: 1n,
    gasLimit: 21000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  const { blockNumber, transactionHash } = await result(url, 'eth_sendRawTransactionSync', [raw, 5000]);
  const deadline = Date.now() + 20_000;
  while (node.modules.ss.earliestVersion() - 1 <= Number(blockNumber) + 1) {
    assert.ok(Date.now() < deadline, 'the state store prunes within 20 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const e = await error(url, 'eth_getBalance', [wallets[0].address, blockNumber]);
  assert.match(e.message, /not available \(pruned\)/, 'the state of the height of the tx is gone');
  assert.deepEqual(
    await result(url, 'eth_getTransactionBySenderAndNonce', [wallets[0].address, '0x0']),
    await result(url, 'eth_getTransactionByHash', [transactionHash]),
  );
  assert.equal(await result(url, 'eth_getTransactionBySenderAndNonce', [wallets[0].address, '0x1']), null);
});
