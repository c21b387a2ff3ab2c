import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openBlockStore } from '../../../../src/storage/blocks/store.ts';
import { filled, makeChain, prng, tempDir } from './fixtures.ts';

const shape = { evmTxs: 1, cosmosTxs: 2, logsPerTx: 0, addresses: [filled(20, 1)], topics: [filled(32, 2)] };
const LONG = 'x'.repeat(100);

test('event index: exact values (long ones hashed), any value, height bounds, Cosmos txs only, truncation', async () => {
  const dir = tempDir('events-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const blocks = [...makeChain(1, 3, shape, prng(3))];
    for (const [h, c] of blocks.entries())
      for (const r of c.results)
        r.events = [
          {
            type: 'transfer',
            attributes: [
              { key: 'recipient', value: `to-${h + 1}`, index: true },
              { key: 'memo', value: `${LONG}${h + 1}-${r.index}`, index: true },
              { key: 'secret', value: 'hidden', index: false },
            ],
          },
        ];
    for (const c of blocks) await store.putBlock(c.block, c.receipts, c.results);
    assert.equal(store.eventsIndexedSince(), 1);
    const at = (h: number) => blocks[h - 1].results.map((r) => ({ height: h, index: r.index }));

    const exact = store.txsByEvent('transfer.recipient', 'to-2', 1, 3, 100);
    assert.deepEqual(exact, { locations: at(2), truncated: false });
    const long = store.txsByEvent('transfer.memo', `${LONG}3-${at(3)[1].index}`, 1, 3, 100);
    assert.deepEqual(long.locations, [at(3)[1]]);
    assert.deepEqual(store.txsByEvent('transfer.secret', 'hidden', 1, 3, 100).locations, [], 'not indexed');
    assert.deepEqual(store.txsByEvent('transfer.recipient', undefined, 2, 3, 100).locations, [
      ...at(2),
      ...at(3),
    ]);
    assert.deepEqual(store.txsByEvent('transfer.recipient', 'to-2', 3, 3, 100).locations, []);
    assert.equal(store.txsByEvent('transfer.recipient', undefined, 1, 3, 2).truncated, true);
    // an EVM tx's events are not in this index (it is found by its hash index)
    const evm = blocks[0].receipts[0];
    const evmHash = Buffer.from(evm.txHash).toString('hex');
    assert.deepEqual(store.txsByEvent('ethereum_tx.ethereumTxHash', evmHash, 1, 3, 100).locations, []);

    await store.truncateAbove(1);
    assert.deepEqual(store.txsByEvent('transfer.recipient', undefined, 1, 3, 100).locations, at(1));
    await store.truncateAbove(0);
    assert.equal(store.eventsIndexedSince(), undefined);
    await store.close();
  } finally {
    dir.remove();
  }
});
