/**
 * eth_getLogs over HTTP: exact log objects (the receipts' logs), address and topic filters, ranges,
 * blockHash queries, and the limits: a range over max_blocks_for_log, an open-ended query over
 * max_log_no_block (here configured to 3, to reach it with a handful of logs), bad ranges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCreateAddress, id, Interface, zeroPadValue } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { emitterNode } from './log-emitter.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const TRANSFER = id('Transfer(address,address,uint256)');
const APPROVAL = id('Approval(address,address,uint256)');
const topicOf = (address: string) => zeroPadValue(address, 32).toLowerCase();

test('eth_getLogs: filters, ranges, blockHash, limits', async (t) => {
  const { node, url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'evm.max_log_no_block': '3',
  });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };
  const [owner, b, c] = wallets;
  const send = async (nonce: number, tx: object) =>
    waitReceipt(
      url,
      await call('eth_sendRawTransaction', await owner.signTransaction({ ...fee, nonce, ...tx })),
    );

  const deploy = await send(0, {
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
  });
  const tokenAddress = getCreateAddress({ from: owner.address, nonce: 0 }).toLowerCase();
  // Three calls held back into one block, to see block-wide log indexes: transfer, approve, transfer.
  await node.modules.engine.producer!.stop();
  const held: string[] = [];
  for (const [i, data] of [
    token.encodeFunctionData('transfer', [b.address, 10n]),
    token.encodeFunctionData('approve', [c.address, 5n]),
    token.encodeFunctionData('transfer', [c.address, 20n]),
  ].entries()) {
    const raw = await owner.signTransaction({
      ...fee,
      nonce: i + 1,
      to: tokenAddress,
      data,
      gasLimit: 100_000,
    });
    held.push(await call('eth_sendRawTransaction', raw));
  }
  node.modules.engine.producer!.start();
  const receipts = await Promise.all(held.map((x) => waitReceipt(url, x)));
  const multi = Number(receipts[0].blockNumber);
  assert.ok(
    receipts.every((r) => Number(r.blockNumber) === multi),
    'one block',
  );
  const first = Number(deploy.blockNumber);
  const latest = node.modules.chain.latestHeight;
  const all = [deploy, ...receipts].flatMap((r) => r.logs);
  assert.equal(all.length, 4);

  await t.test('logs are exactly the receipts’ logs, with block-wide log indexes', async () => {
    const logs = await call('eth_getLogs', { fromBlock: hex(first), toBlock: 'latest' });
    assert.deepEqual(logs, all);
    assert.deepEqual(
      receipts.flatMap((r) => r.logs.map((l: { logIndex: string }) => l.logIndex)),
      ['0x0', '0x1', '0x2'],
    );
    const block = await call('eth_getBlockByNumber', hex(multi), false);
    assert.deepEqual(Object.keys(logs[1]), [
      'address',
      'topics',
      'data',
      'blockNumber',
      'transactionHash',
      'transactionIndex',
      'blockHash',
      'blockTimestamp',
      'logIndex',
      'removed',
    ]);
    assert.deepEqual(logs[1], {
      address: tokenAddress,
      topics: [TRANSFER, topicOf(owner.address), topicOf(b.address)],
      data: '0x' + (10).toString(16).padStart(64, '0'),
      blockNumber: hex(multi),
      transactionHash: held[0],
      transactionIndex: '0x0',
      blockHash: block.hash,
      blockTimestamp: block.timestamp,
      logIndex: '0x0',
      removed: false,
    });
  });

  await t.test('address and topic filters, OR-lists and wildcards', async () => {
    const range = { fromBlock: '0x0', toBlock: hex(latest) };
    const get = (f: object) => call('eth_getLogs', { ...range, ...f });
    assert.deepEqual(await get({ address: tokenAddress }), all);
    assert.deepEqual(await get({ address: [wallets[9].address, tokenAddress] }), all);
    assert.deepEqual(await get({ address: wallets[9].address }), []);
    assert.deepEqual(await get({ topics: [APPROVAL] }), [all[2]]);
    assert.deepEqual(await get({ topics: [[TRANSFER, APPROVAL]] }), all);
    assert.deepEqual(await get({ topics: [TRANSFER, null, topicOf(c.address)] }), [all[3]]);
    assert.deepEqual(await get({ topics: [null, topicOf(owner.address)] }), all.slice(1));
    assert.deepEqual(await get({ topics: [[], [], [topicOf(b.address), topicOf(c.address)]] }), all.slice(1));
    // a log with fewer topics than the filter's positions does not match
    assert.deepEqual(await get({ topics: [TRANSFER, null, null, null] }), []);
  });

  await t.test('ranges and blockHash queries', async () => {
    assert.deepEqual(await call('eth_getLogs', { fromBlock: hex(first), toBlock: hex(first) }), deploy.logs);
    assert.deepEqual(await call('eth_getLogs', { blockHash: receipts[0].blockHash }), all.slice(1));
    assert.deepEqual(await call('eth_getLogs', { fromBlock: 'earliest', toBlock: hex(first - 1) }), []);
    // a range starting above the head is empty, not an error
    assert.deepEqual(
      await call('eth_getLogs', { fromBlock: hex(latest + 1), toBlock: hex(latest + 10) }),
      [],
    );
    // no fromBlock/toBlock: the latest block
    assert.deepEqual(await call('eth_getLogs', {}), latest === multi ? all.slice(1) : []);
    assert.deepEqual(await error(url, 'eth_getLogs', [{ blockHash: '0x' + '77'.repeat(32) }]), {
      code: -32000,
      message: 'unknown block',
    });
    assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x4' }]), {
      code: -32000,
      message: 'invalid block range params: fromBlock 5 is after toBlock 4',
    });
    // a height above 2^53 - 1 is refused, not read as the highest height
    assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x20000000000000' }]), {
      code: -32602,
      message:
        'invalid argument 0: toBlock: invalid block number 0x20000000000000: above 2^53 - 1, the highest block a filter may name',
    });
    assert.deepEqual(
      await error(url, 'eth_getLogs', [{ blockHash: receipts[0].blockHash, toBlock: 'latest' }]),
      {
        code: -32602,
        message:
          'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      },
    );
  });

  await t.test(
    'limits: a range over max_blocks_for_log, an open-ended query over max_log_no_block',
    async () => {
      assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(2000) }]), {
        code: -32005,
        message: 'query exceeds max block range 2000 (max_blocks_for_log): asked for 2001 blocks',
      });
      assert.deepEqual(
        await call('eth_getLogs', { fromBlock: '0x1', toBlock: hex(2000) }),
        all,
        'exactly 2,000 blocks is served',
      );
      // 4 matching logs, limit 3: refused when open-ended, never truncated
      assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x0' }]), {
        code: -32005,
        message: 'query returned more than 3 results (max_log_no_block); give a toBlock or a narrower range',
      });
      // exactly 3 matches are served; a closed range is bounded by blocks, not by this limit
      assert.deepEqual(await call('eth_getLogs', { fromBlock: hex(multi) }), all.slice(1));
      assert.deepEqual(await call('eth_getLogs', { fromBlock: '0x0', toBlock: 'latest' }), all);
    },
  );
});

test('an open-ended range (no toBlock) is bounded by max_log_no_block, a closed one by max_blocks_for_log', async (t) => {
  // 3 blocks and 4 logs: a chain of a few blocks is already longer than the block limit
  const { node, url, call, emit } = await emitterNode(t, {
    'evm.max_blocks_for_log': '3',
    'evm.max_log_no_block': '4',
  });
  const chain = node.modules.chain;
  const first = await emit(2);
  await until(() => chain.latestHeight >= Number(first.blockNumber) + 3);
  await node.modules.engine.producer!.stop();
  const latest = chain.latestHeight;
  assert.ok(latest > 4);
  // open-ended: every block up to the head, however many
  assert.deepEqual(await call('eth_getLogs', { fromBlock: '0x1' }), first.logs);
  assert.deepEqual(await call('eth_getLogs', { fromBlock: 'earliest' }), first.logs);
  const filter = await call('eth_newFilter', { fromBlock: '0x1' });
  assert.deepEqual(await call('eth_getFilterLogs', filter), first.logs);
  // closed, "latest" included: the block limit, whatever the logs
  const wide = {
    code: -32005,
    message: `query exceeds max block range 3 (max_blocks_for_log): asked for ${latest} blocks`,
  };
  assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }]), wide);
  assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: hex(latest) }]), wide);
  assert.deepEqual(
    await call('eth_getLogs', { fromBlock: first.blockNumber, toBlock: hex(Number(first.blockNumber) + 2) }),
    first.logs,
  );
  // more logs than the open-ended limit: refused, never truncated
  node.modules.engine.producer!.start();
  const second = await emit(3);
  await node.modules.engine.producer!.stop();
  const tooMany = {
    code: -32005,
    message: 'query returned more than 4 results (max_log_no_block); give a toBlock or a narrower range',
  };
  assert.deepEqual(await error(url, 'eth_getLogs', [{ fromBlock: '0x1' }]), tooMany);
  assert.deepEqual(await error(url, 'eth_getFilterLogs', [filter]), tooMany);
  assert.deepEqual(await call('eth_getLogs', { fromBlock: second.blockNumber }), second.logs);
});
