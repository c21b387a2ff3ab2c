/**
 * The producer builds one block at a time. With empty blocks off, every admitted transaction wakes
 * it; a wake that arrived while a block was being executed used to start a second production of
 * the same height, which the block store then refused after the whole block had been executed
 * ("cannot store height N"), so a busy node executed its transactions several times over.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAIN_ID, GWEI, result, rpcNode, wallets } from '../rpc/rpc-helpers.ts';

test('a transaction admitted during block production never starts a second production', async (t) => {
  const { node, url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'consensus.timeout-commit': '1ms',
  });
  const producer = node.modules.engine.producer!;
  let running = 0;
  let overlapping = 0;
  let produced = 0;
  const chain = node.modules.chain;
  const startHeight = chain.latestHeight;
  const produce = producer.produce.bind(producer);
  producer.produce = async () => {
    running++;
    if (running > 1) overlapping++;
    try {
      return await produce();
    } finally {
      running--;
      produced++;
    }
  };

  const perSender = 25;
  const hashes: string[] = [];
  await Promise.all(
    wallets.map(async (w, s) => {
      for (let nonce = 0; nonce < perSender; nonce++) {
        const raw = await w.signTransaction({
          chainId: CHAIN_ID,
          type: 2,
          nonce,
          to: wallets[(s + 1) % wallets.length].address,
          value: 1n,
          gasLimit: 21_000,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: GWEI,
        });
        hashes.push(await result(url, 'eth_sendRawTransaction', [raw]));
      }
    }),
  );
  for (let polls = 0; ; polls++) {
    const receipts = await Promise.all(hashes.map((h) => result(url, 'eth_getTransactionReceipt', [h])));
    if (receipts.every((r) => r !== null)) break;
    assert.ok(polls < 1000, 'transactions not mined in time');
    await new Promise((r) => setTimeout(r, 20));
  }
  await producer.stop();
  assert.equal(hashes.length, wallets.length * perSender);
  assert.ok(produced > 1, `expected several blocks, got ${produced}`);
  assert.equal(overlapping, 0, `${overlapping} of ${produced} productions overlapped another`);
  // every production committed its own height: none was executed only to be refused
  assert.equal(chain.latestHeight - startHeight, produced);
});
