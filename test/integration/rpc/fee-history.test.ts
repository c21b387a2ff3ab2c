/**
 * eth_feeHistory over HTTP with geth's semantics: base fees including the next block's, gas used
 * ratios, rewards at percentiles of the block's gas weighted by each tx's gas used; block count in
 * decimal or hex (capped at 1,024); errors for bad percentiles and heights beyond the head.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  error,
  GWEI,
  hex,
  result,
  rpcNode,
  sendAndWait,
  waitReceipt,
  wallets,
  CHAIN_ID,
} from './rpc-helpers.ts';

test('eth_feeHistory', async (t) => {
  // a long block time so that one batch of transactions lands in one block
  const { url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'consensus.timeout-commit': '400ms',
  });
  const feeHistory = (...params: unknown[]) => result(url, 'eth_feeHistory', params);
  const to = wallets[9].address;
  const sign = (i: number, tip: bigint, data = '0x') =>
    wallets[i].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce: 0,
      to,
      data,
      gasLimit: 100_000,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: tip,
    });
  // tips 1, 3 and 2 gwei; the 2-gwei tx carries 1,000 zero bytes of calldata (EIP-7623 floor: 31,000 gas)
  const raws = [
    await sign(0, GWEI),
    await sign(1, 3n * GWEI),
    await sign(2, 2n * GWEI, '0x' + '00'.repeat(1000)),
  ];
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] })),
    ),
  });
  const hashes = ((await res.json()) as { result: string }[]).map((r) => r.result);
  const receipts = await Promise.all(hashes.map((h) => waitReceipt(url, h)));
  const height = Number(receipts[0].blockNumber);
  assert.deepEqual(
    receipts.map((r) => [Number(r.blockNumber), Number(r.gasUsed)]),
    [
      [height, 21_000],
      [height, 21_000],
      [height, 31_000],
    ],
  );
  const block = await result(url, 'eth_getBlockByNumber', [hex(height), false]);
  const gasLimit = Number(block.gasLimit);

  await t.test('rewards are the gas-weighted percentiles of the effective tips', async () => {
    const r = await feeHistory('0x1', hex(height), [0, 25, 30, 50, 100]);
    // sorted by tip: 1 gwei (21,000 gas), 2 gwei (31,000), 3 gwei (21,000); 73,000 gas in all
    // thresholds 0, 18,250 → 1 gwei; 21,900, 36,500 → 2 gwei; 73,000 → 3 gwei
    assert.deepEqual(r.reward, [[GWEI, GWEI, 2n * GWEI, 2n * GWEI, 3n * GWEI].map(hex)]);
    assert.equal(r.oldestBlock, hex(height));
    assert.deepEqual(r.gasUsedRatio, [73_000 / gasLimit]);
    assert.deepEqual(Object.keys(r), ['oldestBlock', 'reward', 'baseFeePerGas', 'gasUsedRatio']);
  });

  await t.test('base fees of each block and of the one after the newest', async () => {
    const r = await feeHistory('4', 'latest', []);
    const head = Number(await result(url, 'eth_blockNumber'));
    const oldest = Math.max(0, head - 3);
    assert.equal(r.oldestBlock, hex(oldest));
    assert.equal('reward' in r, false);
    const blocks = await Promise.all(
      Array.from({ length: head - oldest + 1 }, (_, i) =>
        result(url, 'eth_getBlockByNumber', [hex(oldest + i), false]),
      ),
    );
    assert.deepEqual(
      r.baseFeePerGas.slice(0, -1),
      blocks.map((b) => b.baseFeePerGas),
    );
    assert.deepEqual(
      r.gasUsedRatio,
      blocks.map((b) => Number(b.gasUsed) / gasLimit),
    );
    // the last base fee is the next block's: mine one and compare
    const next = await sendAndWait(url, wallets[3], {
      type: 2,
      nonce: 0,
      to,
      gasLimit: 21_000,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });
    const mined = await result(url, 'eth_getBlockByNumber', [next.receipt.blockNumber, false]);
    assert.equal(Number(next.receipt.blockNumber), head + 1);
    assert.equal(r.baseFeePerGas.at(-1), mined.baseFeePerGas);
    // and for an older newest block, the stored next block's
    const older = await feeHistory(1, hex(head), [50]);
    assert.deepEqual(older.baseFeePerGas, [r.baseFeePerGas.at(-2), mined.baseFeePerGas]);
    // genesis is an empty block: zero rewards
    assert.deepEqual((await feeHistory(1, '0x0', [10, 90])).reward, [['0x0', '0x0']]);
  });

  await t.test('block count forms, the cap and the start of the chain', async () => {
    const a = await feeHistory('0x3', hex(height), [50]);
    assert.deepEqual(await feeHistory('3', hex(height), [50]), a);
    assert.deepEqual(await feeHistory(3, hex(height), [50]), a);
    const all = await feeHistory('0x400', 'latest');
    const head = Number(await result(url, 'eth_blockNumber'));
    assert.equal(all.oldestBlock, '0x0');
    assert.equal(all.gasUsedRatio.length, head + 1);
    assert.deepEqual(await feeHistory('0x401', 'latest'), all); // capped at 1,024 blocks anyway
    assert.deepEqual(await feeHistory('0x0', 'latest', [50]), {
      oldestBlock: '0x0',
      baseFeePerGas: [],
      gasUsedRatio: [],
    });
    assert.deepEqual(await feeHistory(1, 'earliest'), await feeHistory(1, '0x0'));
  });

  await t.test('errors', async () => {
    const head = Number(await result(url, 'eth_blockNumber'));
    const cases: [unknown[], number, string][] = [
      [[1, 'latest', [101]], -32000, 'invalid reward percentile: 101.000000'],
      [[1, 'latest', [-1]], -32000, 'invalid reward percentile: -1.000000'],
      [[1, 'latest', [50, 10]], -32000, 'invalid reward percentile: #0:50.000000 >= #1:10.000000'],
      [[1, 'latest', [10, 10]], -32000, 'invalid reward percentile: #0:10.000000 >= #1:10.000000'],
      [
        [1, 'latest', Array.from({ length: 101 }, (_, i) => i / 2)],
        -32000,
        'invalid reward percentile: over the query limit 100',
      ],
      [[1, hex(head + 5), []], -32000, `request beyond head block: requested ${head + 5}, head ${head}`],
      [['abc', 'latest', []], -32602, 'invalid argument 0: invalid block count "abc"'],
      [
        [true, 'latest', []],
        -32602,
        'invalid argument 0: json: cannot unmarshal bool into Go value of type math.HexOrDecimal64',
      ],
      [
        [1, 'latest', ['50']],
        -32602,
        'invalid argument 2: percentile 0: json: cannot unmarshal string into Go value of type float64',
      ],
      [[1], -32602, 'missing value for required argument 1'],
    ];
    for (const [params, code, message] of cases)
      assert.deepEqual(await error(url, 'eth_feeHistory', params), { code, message }, JSON.stringify(params));
  });
});
