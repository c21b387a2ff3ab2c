/**
 * Polling filters over HTTP: block, log and pending-tx filters with exact answers across several
 * blocks, the lifecycle (expiry after a 1 s filter_timeout, unknown ids, uninstall twice), blockHash /
 * fromBlock exclusivity, the range and count limits (max_blocks_for_log = 5 and max_log_no_block = 3
 * here, to reach them with a handful of blocks and logs), and the bound on installed filters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCreateAddress, Interface } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const ID = /^0x[1-9a-f][0-9a-f]{0,31}$/;
const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };

test('filters: lifecycle, block/log/pending changes, limits', async (t) => {
  const { node, url } = await rpcNode(t, {
    'evm.max_blocks_for_log': '5',
    'evm.max_log_no_block': '3',
  });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const fail = (method: string, ...params: unknown[]) => error(url, method, params);
  const producer = node.modules.engine.producer!;
  const chain = node.modules.chain;
  const [owner, b] = wallets;
  let nonce = 0;
  const sign = (tx: object) => owner.signTransaction({ ...fee, nonce: nonce++, ...tx });
  const blockHashes = async (from: number, to: number) => {
    const out: string[] = [];
    for (let h = from; h <= to; h++) out.push((await call('eth_getBlockByNumber', hex(h), false)).hash);
    return out;
  };

  const deploy = await waitReceipt(
    url,
    await call(
      'eth_sendRawTransaction',
      await sign({
        gasLimit: 2_000_000,
        data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
      }),
    ),
  );
  const tokenAddress = getCreateAddress({ from: owner.address, nonce: 0 }).toLowerCase();
  const transfer = (amount: bigint) =>
    sign({
      to: tokenAddress,
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [b.address, amount]),
    });

  await t.test(
    'block filter: hashes of every block committed since the previous poll, in order',
    async () => {
      await producer.stop();
      const start = chain.latestHeight;
      const id = await call('eth_newBlockFilter');
      assert.match(id, ID);
      assert.deepEqual(await call('eth_getFilterChanges', id), []);
      producer.start();
      await until(() => chain.latestHeight >= start + 3);
      await producer.stop();
      const first = chain.latestHeight;
      assert.deepEqual(await call('eth_getFilterChanges', id), await blockHashes(start + 1, first));
      assert.deepEqual(await call('eth_getFilterChanges', id), []);
      producer.start();
      await until(() => chain.latestHeight >= first + 2);
      await producer.stop();
      assert.deepEqual(
        await call('eth_getFilterChanges', id),
        await blockHashes(first + 1, chain.latestHeight),
      );
      // a block filter has no logs: geth answers "filter not found"
      assert.deepEqual(await fail('eth_getFilterLogs', id), { code: -32000, message: 'filter not found' });
      assert.equal(await call('eth_uninstallFilter', id), true);
      producer.start();
    },
  );

  await t.test('log filter: logs of the blocks committed since the previous poll, in order', async () => {
    await producer.stop();
    const created = chain.latestHeight;
    const id = await call('eth_newFilter', { address: tokenAddress });
    assert.match(id, ID);
    // Two transfers in one block, then one in a later block.
    const h1 = [await call('eth_sendRawTransaction', await transfer(1n))];
    h1.push(await call('eth_sendRawTransaction', await transfer(2n)));
    producer.start();
    const r1 = await Promise.all(h1.map((h) => waitReceipt(url, h)));
    assert.equal(r1[0].blockNumber, r1[1].blockNumber);
    const r2 = await waitReceipt(url, await call('eth_sendRawTransaction', await transfer(3n)));
    // One poll covers at most max_blocks_for_log (5) heights, and a fast producer can commit more
    // than that while the receipts are awaited: with the producer stopped, poll until every height
    // up to the latest has been covered.
    await producer.stop();
    const blocks = chain.latestHeight - created;
    const changes: unknown[] = [];
    for (let i = 0; i < Math.ceil(blocks / 5); i++) changes.push(...(await call('eth_getFilterChanges', id)));
    assert.deepEqual(changes, [...r1[0].logs, ...r1[1].logs, ...r2.logs]);
    assert.deepEqual(await call('eth_getFilterChanges', id), []);
    // eth_getFilterLogs is eth_getLogs of the criteria: fromBlock defaults to latest
    assert.deepEqual(
      await call('eth_getFilterLogs', id),
      await call('eth_getLogs', { address: tokenAddress }),
    );
    const polled = chain.latestHeight;
    producer.start();
    const r3 = await waitReceipt(url, await call('eth_sendRawTransaction', await transfer(4n)));
    await producer.stop();
    const later: unknown[] = [];
    for (let i = 0; i < Math.ceil((chain.latestHeight - polled) / 5); i++)
      later.push(...(await call('eth_getFilterChanges', id)));
    assert.deepEqual(later, r3.logs);
    producer.start();
    assert.equal(await call('eth_uninstallFilter', id), true);
  });

  await t.test('one poll covers at most max_blocks_for_log blocks; the next poll continues', async () => {
    await producer.stop();
    const start = chain.latestHeight;
    const blocksId = await call('eth_newBlockFilter');
    const logsId = await call('eth_newFilter', { address: tokenAddress });
    producer.start();
    // a transfer in the 7th block after the filters were made, beyond the first poll's 5 blocks
    await until(() => chain.latestHeight >= start + 6);
    const late = await waitReceipt(url, await call('eth_sendRawTransaction', await transfer(12n)));
    await producer.stop();
    const end = chain.latestHeight;
    assert.ok(Number(late.blockNumber) > start + 5);
    assert.deepEqual(await call('eth_getFilterChanges', blocksId), await blockHashes(start + 1, start + 5));
    assert.deepEqual(await call('eth_getFilterChanges', logsId), []);
    assert.deepEqual(
      await call('eth_getFilterChanges', blocksId),
      await blockHashes(start + 6, Math.min(end, start + 10)),
    );
    const rest: unknown[] = [];
    for (let i = 0; i < 4; i++) rest.push(...(await call('eth_getFilterChanges', logsId)));
    assert.deepEqual(rest, late.logs);
    producer.start();
  });

  await t.test('eth_getFilterLogs includes history; numeric bounds limit changes', async () => {
    const from = Number(deploy.blockNumber);
    const id = await call('eth_newFilter', {
      fromBlock: hex(from),
      toBlock: hex(from + 4),
      address: tokenAddress,
    });
    assert.deepEqual(
      await call('eth_getFilterLogs', id),
      await call('eth_getLogs', { fromBlock: hex(from), toBlock: hex(from + 4), address: tokenAddress }),
    );
    assert.equal((await call('eth_getFilterLogs', id))[0].transactionHash, deploy.transactionHash);
    // its range is in the past: new blocks add nothing
    await waitReceipt(url, await call('eth_sendRawTransaction', await transfer(5n)));
    assert.deepEqual(await call('eth_getFilterChanges', id), []);
  });

  await t.test('a log filter reports more logs than max_log_no_block over several polls', async () => {
    const id = await call('eth_newFilter', { address: tokenAddress });
    await producer.stop();
    const first = [await call('eth_sendRawTransaction', await transfer(6n))];
    first.push(await call('eth_sendRawTransaction', await transfer(7n)));
    producer.start();
    const ra = await Promise.all(first.map((h) => waitReceipt(url, h)));
    await producer.stop();
    const second = [await call('eth_sendRawTransaction', await transfer(8n))];
    second.push(await call('eth_sendRawTransaction', await transfer(9n)));
    producer.start();
    const rb = await Promise.all(second.map((h) => waitReceipt(url, h)));
    assert.notEqual(ra[0].blockNumber, rb[0].blockNumber);
    // four logs, limit three: the first poll stops inside the second block, the next brings the rest
    assert.deepEqual(await call('eth_getFilterChanges', id), [...ra[0].logs, ...ra[1].logs, ...rb[0].logs]);
    assert.deepEqual(await call('eth_getFilterChanges', id), rb[1].logs);
    // eth_getFilterLogs of an open-ended filter matching more than three logs is the -32005 of eth_getLogs
    const wide = await call('eth_newFilter', {
      fromBlock: hex(Number(ra[0].blockNumber)),
      address: tokenAddress,
    });
    const err = await fail('eth_getFilterLogs', wide);
    assert.equal(err.code, -32005);
    assert.match(err.message, /max_log_no_block/);
  });

  await t.test('pending transaction filter: hashes of txs admitted since the previous poll', async () => {
    const id = await call('eth_newPendingTransactionFilter');
    assert.match(id, ID);
    await producer.stop();
    const hashes = [await call('eth_sendRawTransaction', await transfer(10n))];
    hashes.push(await call('eth_sendRawTransaction', await transfer(11n)));
    assert.deepEqual(await call('eth_getFilterChanges', id), hashes);
    assert.deepEqual(await call('eth_getFilterChanges', id), []);
    producer.start();
    await Promise.all(hashes.map((h) => waitReceipt(url, h)));
    assert.deepEqual(await call('eth_getFilterChanges', id), []);
    assert.deepEqual(await fail('eth_getFilterLogs', id), { code: -32000, message: 'filter not found' });
  });

  await t.test('filter objects: blockHash is exclusive with fromBlock/toBlock; range limit', async () => {
    const blockHash = deploy.blockHash;
    for (const extra of [{ fromBlock: '0x1' }, { toBlock: 'latest' }]) {
      const err = await fail('eth_newFilter', { blockHash, ...extra });
      assert.equal(err.code, -32602);
      assert.match(err.message, /^invalid argument 0: cannot specify both BlockHash and FromBlock\/ToBlock/);
    }
    const byHash = await call('eth_newFilter', { blockHash });
    assert.deepEqual(await call('eth_getFilterLogs', byHash), deploy.logs);
    assert.deepEqual(await call('eth_getFilterChanges', byHash), []);

    const wide = await fail('eth_newFilter', { fromBlock: '0x1', toBlock: '0x6' });
    assert.equal(wide.code, -32005);
    assert.match(wide.message, /max block range 5 \(max_blocks_for_log\): asked for 6 blocks/);
    const reversed = await fail('eth_newFilter', { fromBlock: '0x6', toBlock: '0x1' });
    assert.equal(reversed.code, -32000);
    // a range that grows with the chain reaches the limit when its logs are asked for
    const growing = await call('eth_newFilter', { fromBlock: '0x1', toBlock: 'latest' });
    const err = await fail('eth_getFilterLogs', growing);
    assert.equal(err.code, -32005);
    assert.match(err.message, /max_blocks_for_log/);
  });
});

test('filter lifecycle: expiry after filter_timeout, unknown ids, uninstall twice', async (t) => {
  const { url } = await rpcNode(t, { 'evm.filter_timeout': '2s' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const fail = (method: string, ...params: unknown[]) => error(url, method, params);

  const expiring = await call('eth_newBlockFilter');
  const kept = await call('eth_newFilter', {});
  // polled every 100 ms, a filter outlives filter_timeout (2 s); the unpolled one does not (a poll
  // delayed by a loaded machine still has almost the whole timeout to spare)
  for (const end = Date.now() + 2_500; Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 100));
    await call('eth_getFilterChanges', kept);
  }
  assert.deepEqual(await fail('eth_getFilterChanges', expiring), {
    code: -32000,
    message: 'filter not found',
  });
  assert.equal(await call('eth_uninstallFilter', expiring), false);
  assert.deepEqual(await fail('eth_getFilterChanges', '0x1234'), {
    code: -32000,
    message: 'filter not found',
  });
  assert.deepEqual(await fail('eth_getFilterLogs', '0xabc'), { code: -32000, message: 'filter not found' });
  assert.equal(await call('eth_uninstallFilter', kept), true);
  assert.equal(await call('eth_uninstallFilter', kept), false);
  assert.deepEqual(await fail('eth_getFilterChanges', kept), { code: -32000, message: 'filter not found' });
  assert.equal((await fail('eth_getFilterChanges', 7)).code, -32602);
  assert.equal((await fail('eth_uninstallFilter')).code, -32602);
});

test('at most 10,000 filters are installed; uninstalling frees a place', async (t) => {
  const { url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const fail = (method: string, ...params: unknown[]) => error(url, method, params);

  const batch = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_newBlockFilter',
      params: [],
    }));
  const ids: string[] = [];
  // filter_timeout is the default 120 s here: none expires while the 10,000 are installed
  for (;;) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch(1000)),
    });
    const answers = (await res.json()) as { result?: string; error?: { code: number; message: string } }[];
    const refused = answers.filter((a) => a.error);
    ids.push(...answers.flatMap((a) => (a.result ? [a.result] : [])));
    if (refused.length > 0) {
      assert.equal(refused[0].error!.code, -32000);
      assert.match(
        refused[0].error!.message,
        /^too many filters: 10000 are installed, the most this node keeps \(\[evm\] max_filters\)/,
      );
      break;
    }
  }
  assert.equal(ids.length, 10_000);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  assert.equal(await call('eth_uninstallFilter', ids[0]), true);
  assert.match(await call('eth_newBlockFilter'), ID);
  assert.equal((await fail('eth_newBlockFilter')).code, -32000);
});
