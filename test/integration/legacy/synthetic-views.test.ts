/**
 * The legacy surface's synthetic views on a real node over HTTP. One block is held back so that it holds, in
 * block order: a token transfer (a log), a call that reverts, a large value transfer, an EVM tx of the
 * same sender that cannot pay once that transfer ran (it passed admission on its own) and is therefore
 * included but failed before execution (nonce consumed, nothing executed), and two Cosmos txs: a
 * signed tx with two bank MsgSends and a MsgSend that fails (fee and sequence taken, nothing sent).
 * The block is then read through every eth_, chain_ and chain2_ block, count, tx, receipt, log and
 * filter method, the ExcludeTraceFail variants and debug_trace*, with exact lists and indices; last,
 * the unpayable tx's sender goes on with its next nonce.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { getCreateAddress, Interface, parseEther, Signature, Wallet } from 'ethers';
import { AuthReader } from '../../../src/app/auth.ts';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { CHAIN_ID, GWEI, rpc, rpcNode, waitReceipt, wallets } from '../rpc/rpc-helpers.ts';

const SYNTHETIC = '0xffffffff';
const UCHAIN_WEI = 10n ** 12n;
const hx = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const q = (n: number | bigint) => '0x' + n.toString(16);
const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const bankHash = (txHash: Uint8Array, i: number) => {
  const index = Buffer.alloc(4);
  index.writeUInt32BE(i);
  return hx(sha256(txHash, index));
};

const SYNTHETIC_METHODS = [
  'chain_getBlockByHash',
  'chain_getBlockByNumber',
  'chain_getBlockReceipts',
  'chain_getBlockTransactionCountByHash',
  'chain_getBlockTransactionCountByNumber',
  'chain_getTransactionByHash',
  'chain_getTransactionByBlockHashAndIndex',
  'chain_getTransactionByBlockNumberAndIndex',
  'chain_getTransactionReceipt',
  'chain_getLogs',
  'chain_newFilter',
  'chain_newBlockFilter',
  'chain_getFilterChanges',
  'chain_getFilterLogs',
  'chain_uninstallFilter',
  'chain_getBlockByHashExcludeTraceFail',
  'chain_getBlockByNumberExcludeTraceFail',
  'chain_getTransactionReceiptExcludeTraceFail',
  'chain_traceBlockByHashExcludeTraceFail',
  'chain_traceBlockByNumberExcludeTraceFail',
  'chain2_getBlockByHash',
  'chain2_getBlockByNumber',
  'chain2_getBlockReceipts',
  'chain2_getBlockTransactionCountByHash',
  'chain2_getBlockTransactionCountByNumber',
  'chain2_getBlockByHashExcludeTraceFail',
  'chain2_getBlockByNumberExcludeTraceFail',
  'chain_getTransactionErrorByHash',
  'chain_getVMError',
];

async function signSends(
  node: ChainNode,
  key: Uint8Array,
  sends: { to: string; amount: string }[],
): Promise<Uint8Array> {
  const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const account = new AuthReader(node.modules.chain.state).account(accountFromPrivateKey(key).cosmosAddress)!;
  const client = await SigningStargateClient.offline(wallet);
  const msgs = sends.map((s) => ({
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: s.to, amount: [{ denom: 'uchain', amount: s.amount }] },
  }));
  const signed = await client.sign(
    address,
    msgs,
    { amount: [{ denom: 'uchain', amount: '300' }], gas: '300000' },
    '',
    { accountNumber: account.accountNumber, sequence: Number(account.sequence), chainId: 'it-1' },
  );
  return TxRaw.encode(signed).finish();
}

test('a block of EVM txs and Cosmos bank sends through every eth_, chain_ and chain2_ view', async (t) => {
  const { node, url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'evm.enabled_legacy_chain_apis': SYNTHETIC_METHODS.join(','),
  });
  let id = 0;
  const raw = async (method: string, ...params: unknown[]) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    return (await res.json()) as { result?: any; error?: { code: number; message: string } };
  };
  const call = async (method: string, ...params: unknown[]) => {
    const r = await raw(method, ...params);
    assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const fee = (tip: bigint) => ({
    type: 2,
    chainId: CHAIN_ID,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: tip * GWEI,
  });
  const token = new Interface(artifacts.TestToken.abi);
  const [owner, poor, , , , , whale] = wallets;

  const deploy = await waitReceipt(
    url,
    await call(
      'eth_sendRawTransaction',
      await owner.signTransaction({
        ...fee(1n),
        nonce: 0,
        gasLimit: 2_000_000,
        data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
      }),
    ),
  );
  assert.equal(deploy.status, '0x1');
  const tokenAddress = getCreateAddress({ from: owner.address, nonce: 0 });

  // Filters installed before the block: eth_'s and chain_'s tables are separate.
  const ethLogFilter = await call('eth_newFilter', { address: tokenAddress });
  const ethBlockFilter = await call('eth_newBlockFilter');
  const chainLogFilter = await call('chain_newFilter', { address: tokenAddress });
  const chainBlockFilter = await call('chain_newBlockFilter');

  await node.modules.engine.producer!.stop();
  const before = node.modules.chain.latestHeight;
  // Distinct tips fix the EVM order (the producer takes EVM txs by tip, then Cosmos txs by arrival).
  const send = async (tx: object) => call('eth_sendRawTransaction', await (tx as any).w.signTransaction(tx));
  const transfer = await send({
    w: owner,
    ...fee(5n),
    nonce: 1,
    to: tokenAddress,
    gasLimit: 100_000,
    data: token.encodeFunctionData('transfer', [poor.address, 10n]),
  });
  const reverting = await send({
    w: poor,
    ...fee(4n),
    nonce: 0,
    to: tokenAddress,
    gasLimit: 100_000,
    data: token.encodeFunctionData('transfer', [owner.address, 100n]), // holds 10 by then: reverts,
  });
  const big = await send({
    w: whale,
    ...fee(3n),
    nonce: 0,
    to: poor.address,
    value: parseEther('9000'),
    gasLimit: 21_000,
  });
  // Admitted on its own (the whale holds 10,000 ether), unpayable after `big`: included, failed
  // before execution.
  const unpayable = await send({
    w: whale,
    ...fee(3n),
    nonce: 1,
    to: poor.address,
    value: parseEther('9000'),
    gasLimit: 21_000,
  });
  // After the unpayable tx (a lower tip): the ExcludeTraceFail views number it one lower than eth_.
  const late = await send({
    w: wallets[4],
    ...fee(2n),
    nonce: 0,
    to: poor.address,
    value: 1n,
    gasLimit: 21_000,
  });
  const fresh = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x5a)));
  const sendsRaw = await signSends(node, DEV_ACCOUNTS[2].privateKey, [
    { to: toAccAddress(DEV_ACCOUNTS[5].cosmosAddress), amount: '5' },
    { to: toAccAddress(fresh.cosmosAddress), amount: '7' },
  ]);
  const failingRaw = await signSends(node, DEV_ACCOUNTS[3].privateKey, [
    { to: toAccAddress(DEV_ACCOUNTS[5].cosmosAddress), amount: '20000000000' },
  ]);
  const sends = node.modules.cosmosPool.checkTx(sendsRaw);
  const failing = node.modules.cosmosPool.checkTx(failingRaw);
  node.modules.engine.producer!.start();
  await until(() => node.modules.chain.latestHeight > before && node.modules.chain.latestHeight);
  // No block after this one while the views are read (the filters' answers depend on the head).
  await node.modules.engine.producer!.stop();
  const height = before + 1;
  const N = q(height);
  const results = node.modules.blocks.cosmosResultsOfBlock(height)!;
  assert.deepEqual(
    results.map((r) => r.code),
    [0, 5],
    'the bank sends executed, the oversized send failed after its fee was taken',
  );
  const [sendsGas, failingGas] = results.map((r) => r.gasUsed);

  const eth = await call('eth_getBlockByNumber', N, false);
  const blockHash = eth.hash;
  const C1 = hx(sends.hash);
  const C2 = hx(failing.hash);
  const evmList = [transfer, reverting, big, unpayable, late];
  const executed = [transfer, reverting, big, late];
  const lists: Record<string, string[]> = {
    eth_: evmList,
    chain_: [...evmList, C1, C2],
    chain2_: [
      ...evmList,
      C1,
      bankHash(sends.hash, 0),
      bankHash(sends.hash, 1),
      C2,
      bankHash(failing.hash, 0),
    ],
    chainETF: executed,
    chain2ETF: [...executed, bankHash(sends.hash, 0), bankHash(sends.hash, 1)],
  };
  assert.deepEqual(eth.transactions, lists.eth_);
  const whaleAt = async (tag: string) => BigInt(await call('eth_getBalance', whale.address, tag));
  const whaleBalance = await whaleAt(N);
  const unpayableReason = `insufficient funds for gas * price + value: address ${whale.address} have ${whaleBalance} want ${21_000n * 100n * GWEI + parseEther('9000')}`;

  await t.test(
    'the unpayable EVM tx is included, failed before execution: nonce consumed, nothing else',
    async () => {
      const bigReceipt = await call('eth_getTransactionReceipt', big);
      const receipt = await call('eth_getTransactionReceipt', unpayable);
      assert.deepEqual(receipt, {
        blockHash,
        blockNumber: N,
        contractAddress: null,
        cumulativeGasUsed: bigReceipt.cumulativeGasUsed,
        effectiveGasPrice: bigReceipt.effectiveGasPrice,
        from: whale.address.toLowerCase(),
        gasUsed: '0x0',
        logs: [],
        logsBloom: '0x' + '00'.repeat(256),
        status: '0x0',
        to: poor.address.toLowerCase(),
        transactionHash: unpayable,
        transactionIndex: '0x3',
        type: '0x2',
      });
      const lateReceipt = await call('eth_getTransactionReceipt', late);
      assert.equal(
        BigInt(lateReceipt.cumulativeGasUsed),
        BigInt(bigReceipt.cumulativeGasUsed) + 21_000n,
        'it adds no gas to the block',
      );
      const tx = await call('eth_getTransactionByHash', unpayable);
      assert.deepEqual(
        [tx.hash, tx.nonce, tx.value, tx.transactionIndex, tx.blockNumber],
        [unpayable, '0x1', q(parseEther('9000')), '0x3', N],
      );
      assert.equal(await call('eth_getTransactionCount', whale.address, N), '0x2', 'both nonces used');
      // Only `big` moved the whale's funds: its value and its fee.
      const paid = parseEther('9000') + BigInt(bigReceipt.gasUsed) * BigInt(bigReceipt.effectiveGasPrice);
      assert.equal(whaleBalance, (await whaleAt(q(height - 1))) - paid);
      assert.equal(await call('chain_getTransactionErrorByHash', unpayable), unpayableReason);
      assert.equal(await call('chain_getVMError', unpayable), unpayableReason);
      assert.deepEqual(await call('chain_getTransactionReceipt', unpayable), receipt);
      assert.deepEqual(await call('chain_getTransactionByHash', unpayable), tx);
    },
  );

  await t.test('blocks and counts: each view lists its entries in block order', async () => {
    const views: [string, string, string][] = [
      ['eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_'],
      ['chain_getBlockByNumber', 'chain_getBlockByHash', 'chain_'],
      ['chain2_getBlockByNumber', 'chain2_getBlockByHash', 'chain2_'],
      ['chain_getBlockByNumberExcludeTraceFail', 'chain_getBlockByHashExcludeTraceFail', 'chainETF'],
      ['chain2_getBlockByNumberExcludeTraceFail', 'chain2_getBlockByHashExcludeTraceFail', 'chain2ETF'],
    ];
    for (const [byNumber, byHash, view] of views) {
      const list = lists[view];
      const b = await call(byNumber, N, false);
      assert.deepEqual(b.transactions, list, byNumber);
      assert.deepEqual(await call(byHash, blockHash, false), b, byHash);
      const full = await call(byNumber, N, true);
      assert.deepEqual(
        full.transactions.map((x: any) => [x.hash, x.transactionIndex, x.blockHash, x.blockNumber]),
        list.map((h, i) => [h, q(i), blockHash, N]),
        `${byNumber} full`,
      );
      // Only the lists and what sums over them differ from the eth_ block.
      const { transactions: _a, gasUsed: _b, ...header } = b;
      const { transactions: _c, gasUsed: _d, ...ethHeader } = eth;
      assert.deepEqual(header, ethHeader, `${byNumber} header`);
    }
    for (const [prefix, view] of [
      ['eth_', 'eth_'],
      ['chain_', 'chain_'],
      ['chain2_', 'chain2_'],
    ]) {
      assert.equal(await call(`${prefix}getBlockTransactionCountByNumber`, N), q(lists[view].length));
      assert.equal(await call(`${prefix}getBlockTransactionCountByHash`, blockHash), q(lists[view].length));
    }
    const chainBlock = await call('chain_getBlockByNumber', N, false);
    assert.equal(BigInt(chainBlock.gasUsed), BigInt(eth.gasUsed) + sendsGas + failingGas);
    assert.equal((await call('chain2_getBlockByNumber', N, false)).gasUsed, chainBlock.gasUsed);
    assert.equal((await call('chain_getBlockByNumberExcludeTraceFail', N, false)).gasUsed, eth.gasUsed);
  });

  await t.test(
    'transactions: the EVM ones as eth_ shows them, synthetic and bank entries in EVM shape',
    async () => {
      const full = (await call('chain2_getBlockByNumber', N, true)).transactions;
      for (const [i, h] of evmList.entries()) {
        const e = await call('eth_getTransactionByHash', h);
        assert.deepEqual(full[i], e);
        assert.deepEqual(await call('chain_getTransactionByHash', h), e);
        assert.deepEqual(await call('eth_getTransactionByBlockNumberAndIndex', N, q(i)), e);
        assert.deepEqual(await call('eth_getTransactionByBlockHashAndIndex', blockHash, q(i)), e);
      }
      const ts = eth.timestamp;
      const common = {
        blockHash,
        blockNumber: N,
        blockTimestamp: ts,
        input: '0x',
        type: SYNTHETIC,
        chainId: q(CHAIN_ID),
        v: '0x0',
        r: '0x0',
        s: '0x0',
      };
      const sender = hx(DEV_ACCOUNTS[2].evmAddress);
      const c1 = {
        blockHash,
        blockNumber: N,
        blockTimestamp: ts,
        from: sender,
        gas: q(300_000),
        gasPrice: q((300n * UCHAIN_WEI) / 300_000n),
        hash: C1,
        input: '0x',
        nonce: '0x0',
        to: hx(DEV_ACCOUNTS[5].evmAddress),
        transactionIndex: '0x5',
        value: '0x0',
        type: SYNTHETIC,
        chainId: q(CHAIN_ID),
        v: '0x0',
        r: '0x0',
        s: '0x0',
      };
      assert.deepEqual(full[5], c1);
      assert.deepEqual(await call('chain_getTransactionByHash', C1), c1);
      assert.deepEqual(await call('chain_getTransactionByBlockNumberAndIndex', N, '0x5'), c1);
      assert.deepEqual(await call('chain_getTransactionByBlockHashAndIndex', blockHash, '0x5'), c1);
      assert.deepEqual(full[6], {
        ...common,
        from: sender,
        gas: '0x0',
        gasPrice: '0x0',
        hash: bankHash(sends.hash, 0),
        nonce: '0x0',
        to: hx(DEV_ACCOUNTS[5].evmAddress),
        transactionIndex: '0x6',
        value: q(5n * UCHAIN_WEI),
      } as any);
      // The fresh recipient has no association: its cast (the same 20 bytes) stands for it.
      assert.deepEqual([full[7].to, full[7].value], [hx(fresh.cosmosAddress), q(7n * UCHAIN_WEI)]);
      assert.deepEqual(
        [full[8].hash, full[8].from, full[8].transactionIndex],
        [C2, hx(DEV_ACCOUNTS[3].evmAddress), '0x8'],
      );
      assert.deepEqual([full[9].value, full[9].transactionIndex], [q(20_000_000_000n * UCHAIN_WEI), '0x9']);
      // chain_ (not chain2_) indexes C2 right after C1
      assert.equal((await call('chain_getTransactionByHash', C2)).transactionIndex, '0x6');
      assert.equal(await call('chain_getTransactionByBlockNumberAndIndex', N, '0x7'), null);
      assert.equal(await call('eth_getTransactionByHash', C1), null, 'eth_ knows no synthetic tx');
    },
  );

  await t.test('receipts: EVM receipts as eth_, shell receipts with the Cosmos status and gas', async () => {
    const ethReceipts = await call('eth_getBlockReceipts', N);
    assert.deepEqual(
      ethReceipts.map((r: any) => [r.transactionHash, r.status]),
      [
        [transfer, '0x1'],
        [reverting, '0x0'],
        [big, '0x1'],
        [unpayable, '0x0'],
        [late, '0x1'],
      ],
    );
    for (const [i, r] of ethReceipts.entries()) {
      assert.deepEqual(await call('eth_getTransactionReceipt', r.transactionHash), r);
      assert.deepEqual(await call('chain_getTransactionReceipt', r.transactionHash), r);
      assert.equal(r.transactionIndex, q(i));
    }
    // ExcludeTraceFail: the unpayable tx is refused, the tx after it is numbered over the shorter list.
    for (const [i, r] of ethReceipts.slice(0, 3).entries())
      assert.deepEqual(
        await call('chain_getTransactionReceiptExcludeTraceFail', r.transactionHash),
        r,
        `${i}`,
      );
    assert.deepEqual((await raw('chain_getTransactionReceiptExcludeTraceFail', unpayable)).error, {
      code: -32000,
      message: `transaction ${unpayable} was included in block ${height} but failed before execution (nonce consumed, nothing executed), so it has no trace`,
    });
    assert.deepEqual(await call('chain_getTransactionReceiptExcludeTraceFail', late), {
      ...ethReceipts[4],
      transactionIndex: '0x3',
    });
    assert.deepEqual(
      (await call('chain_getBlockByNumberExcludeTraceFail', N, true)).transactions.map((x: any) => [
        x.hash,
        x.transactionIndex,
      ]),
      executed.map((h, i) => [h, q(i)]),
    );
    const evmGas = BigInt(ethReceipts[4].cumulativeGasUsed);
    const chainReceipts = await call('chain_getBlockReceipts', N);
    assert.deepEqual(chainReceipts.slice(0, 5), ethReceipts);
    const shell = (
      hash: string,
      index: number,
      gasUsed: bigint,
      cumulative: bigint,
      status: string,
      from: Uint8Array,
      to: Uint8Array,
    ) => ({
      blockHash,
      blockNumber: N,
      contractAddress: null,
      cumulativeGasUsed: q(cumulative),
      effectiveGasPrice: q((300n * UCHAIN_WEI) / 300_000n),
      from: hx(from),
      gasUsed: q(gasUsed),
      logs: [],
      logsBloom: '0x' + '00'.repeat(256),
      status,
      to: hx(to),
      transactionHash: hash,
      transactionIndex: q(index),
      type: SYNTHETIC,
    });
    const c1 = shell(
      C1,
      5,
      sendsGas,
      evmGas + sendsGas,
      '0x1',
      DEV_ACCOUNTS[2].evmAddress,
      DEV_ACCOUNTS[5].evmAddress,
    );
    const c2 = shell(
      C2,
      6,
      failingGas,
      evmGas + sendsGas + failingGas,
      '0x0',
      DEV_ACCOUNTS[3].evmAddress,
      DEV_ACCOUNTS[5].evmAddress,
    );
    assert.deepEqual(chainReceipts.slice(5), [c1, c2]);
    assert.deepEqual(await call('chain_getTransactionReceipt', C1), c1);
    assert.deepEqual(await call('chain_getTransactionReceipt', C2), c2);
    assert.equal(await call('eth_getTransactionReceipt', C1), null);

    const chain2 = await call('chain2_getBlockReceipts', N);
    assert.deepEqual(
      chain2.map((r: any) => [
        r.transactionHash,
        r.transactionIndex,
        r.status,
        r.gasUsed,
        r.cumulativeGasUsed,
      ]),
      [
        ...ethReceipts.map((r: any) => [
          r.transactionHash,
          r.transactionIndex,
          r.status,
          r.gasUsed,
          r.cumulativeGasUsed,
        ]),
        [C1, '0x5', '0x1', q(sendsGas), q(evmGas + sendsGas)],
        [bankHash(sends.hash, 0), '0x6', '0x1', '0x0', q(evmGas + sendsGas)],
        [bankHash(sends.hash, 1), '0x7', '0x1', '0x0', q(evmGas + sendsGas)],
        [C2, '0x8', '0x0', q(failingGas), q(evmGas + sendsGas + failingGas)],
        [bankHash(failing.hash, 0), '0x9', '0x0', '0x0', q(evmGas + sendsGas + failingGas)],
      ],
    );

    // ExcludeTraceFail: the failed Cosmos tx was included with nonce consumed and nothing executed.
    const refused = await raw('chain_getTransactionReceiptExcludeTraceFail', C2);
    assert.deepEqual(refused.error, {
      code: -32000,
      message: `transaction ${C2} was included in block ${height} but failed before execution (nonce consumed, nothing executed), so it has no trace`,
    });
    assert.equal(
      await call('chain_getTransactionReceiptExcludeTraceFail', C1),
      null,
      'synthetic entries are left out',
    );
  });

  await t.test(
    'logs and filters: chain_ has the same logs here (bank sends emit none) and its own filter table',
    async () => {
      const ethLogs = await call('eth_getLogs', { fromBlock: N, toBlock: N });
      assert.equal(ethLogs.length, 1);
      assert.deepEqual(
        [ethLogs[0].transactionHash, ethLogs[0].transactionIndex, ethLogs[0].logIndex],
        [transfer, '0x0', '0x0'],
      );
      assert.deepEqual(await call('chain_getLogs', { fromBlock: N, toBlock: N }), ethLogs);
      assert.deepEqual(await call('chain_getLogs', { blockHash }), ethLogs);
      assert.deepEqual(await call('eth_getFilterChanges', ethLogFilter), ethLogs);
      assert.deepEqual(await call('chain_getFilterChanges', chainLogFilter), ethLogs);
      assert.deepEqual(await call('chain_getFilterChanges', chainLogFilter), []);
      assert.deepEqual(
        await call('eth_getFilterLogs', ethLogFilter),
        await call('eth_getLogs', { address: tokenAddress }),
      );
      assert.deepEqual(
        await call('chain_getFilterLogs', chainLogFilter),
        await call('chain_getLogs', { address: tokenAddress }),
      );
      // Another block may have been produced before the producer was stopped.
      const hashes: string[] = [];
      for (let h = height; h <= node.modules.chain.latestHeight; h++)
        hashes.push((await call('eth_getBlockByNumber', q(h), false)).hash);
      assert.equal(hashes[0], blockHash);
      assert.deepEqual(await call('eth_getFilterChanges', ethBlockFilter), hashes);
      assert.deepEqual(await call('chain_getFilterChanges', chainBlockFilter), hashes);
      // one table does not know the other's ids
      assert.equal((await raw('chain_getFilterChanges', ethLogFilter)).error?.message, 'filter not found');
      assert.equal((await raw('eth_getFilterChanges', chainLogFilter)).error?.message, 'filter not found');
      assert.equal(await call('chain_uninstallFilter', chainBlockFilter), true);
      assert.equal(await call('chain_uninstallFilter', chainBlockFilter), false);
      assert.equal(await call('eth_uninstallFilter', ethBlockFilter), true);
    },
  );

  await t.test(
    'trace variants: debug_traceBlockBy* without the tx that failed before execution',
    async () => {
      const debug = await raw('debug_traceBlockByNumber', N, { tracer: 'callTracer' });
      const byNumber = await raw('chain_traceBlockByNumberExcludeTraceFail', N, { tracer: 'callTracer' });
      const byHash = await raw('chain_traceBlockByHashExcludeTraceFail', blockHash, { tracer: 'callTracer' });
      assert.equal(debug.error, undefined, JSON.stringify(debug.error));
      assert.deepEqual(
        debug.result.map((e: any) => e.txHash),
        evmList,
      );
      // The replay included it as the block did: nothing ran, so its entry is an error, and the tx
      // after it traces as it executed.
      const notExecuted = `transaction ${unpayable} was included in block ${height} but failed before execution (nonce consumed, nothing executed), so it has no trace: ${unpayableReason}`;
      assert.deepEqual(debug.result[3], { txHash: unpayable, error: notExecuted });
      for (const i of [0, 1, 2, 4]) assert.ok('result' in debug.result[i], `${i} traced`);
      assert.deepEqual(
        [debug.result[4].result.from, debug.result[4].result.to, debug.result[4].result.value],
        [wallets[4].address.toLowerCase(), poor.address.toLowerCase(), '0x1'],
      );
      assert.deepEqual((await raw('debug_traceTransaction', unpayable, { tracer: 'callTracer' })).error, {
        code: -32000,
        message: notExecuted,
      });
      assert.equal((await raw('debug_traceTransaction', unpayable)).error?.message, notExecuted);
      assert.deepEqual(
        await call('debug_traceTransaction', late, { tracer: 'callTracer' }),
        debug.result[4].result,
      );
      const withoutFailed = debug.result.filter((e: any) => e.txHash !== unpayable);
      assert.equal(withoutFailed.length, 4);
      assert.deepEqual(byNumber.result, withoutFailed);
      assert.deepEqual(byHash.result, withoutFailed);
      const bad = await raw('chain_traceBlockByNumberExcludeTraceFail', N, 'callTracer');
      assert.equal(bad.error?.code, -32602);
      assert.deepEqual(bad.error, (await raw('debug_traceBlockByNumber', N, 'callTracer')).error);
    },
  );

  await t.test('the unpayable tx left the mempool and its sender goes on with the next nonce', async () => {
    const mempool = node.modules.mempool;
    assert.equal(mempool.has(Buffer.from(unpayable.slice(2), 'hex')), false);
    assert.equal(await mempool.pendingNonce(Buffer.from(whale.address.slice(2), 'hex')), 2n);
    const next = await send({
      w: whale,
      ...fee(1n),
      nonce: 2,
      to: poor.address,
      value: 1n,
      gasLimit: 21_000,
    });
    node.modules.engine.producer!.start();
    const receipt = await waitReceipt(url, next);
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.gasUsed, q(21_000));
  });
});

test('a chain_associate tx is a synthetic entry: from the key it associated, no recipient, no fee', async (t) => {
  const { node, url } = await rpcNode(t, {
    'consensus.create-empty-blocks': 'false',
    'evm.enabled_legacy_chain_apis': [...SYNTHETIC_METHODS, 'chain_associate'].join(','),
  });
  const call = async (method: string, ...params: unknown[]) => {
    const r = await rpc(url, method, params);
    assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const key = new Wallet('0x' + '7a'.repeat(32));
  // An association needs some balance on one of the key's addresses.
  await waitReceipt(
    url,
    await call(
      'eth_sendRawTransaction',
      await wallets[1].signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: 0,
        to: key.address,
        value: 1n,
        gasLimit: 21_000,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
      }),
    ),
  );
  const text = 'associate me';
  const sig = Signature.from(await key.signMessage(text));
  const hash = await call('chain_associate', {
    custom_message: `\x19Ethereum Signed Message:\n${text.length}${text}`,
    r: sig.r,
    s: sig.s,
    v: sig.v,
  });
  const location = await until(() => {
    const r = node.modules.blocks.cosmosResultByHash(Buffer.from(hash.slice(2), 'hex'));
    return r && r.location.height <= node.modules.chain.latestHeight ? r : undefined;
  });
  assert.equal(location.result.code, 0);
  const N = q(location.location.height);
  const tx = await call('chain_getTransactionByHash', hash);
  assert.deepEqual(
    [tx.hash, tx.from, tx.to, tx.value, tx.gasPrice, tx.nonce, tx.type, tx.blockNumber],
    [hash, key.address.toLowerCase(), null, '0x0', '0x0', '0x0', SYNTHETIC, N],
  );
  const receipt = await call('chain_getTransactionReceipt', hash);
  assert.deepEqual(
    [receipt.status, receipt.gasUsed, receipt.to, receipt.transactionIndex],
    ['0x1', q(location.result.gasUsed), null, tx.transactionIndex],
  );
  assert.ok((await call('chain_getBlockByNumber', N, false)).transactions.includes(hash));
  assert.equal((await call('eth_getBlockByNumber', N, false)).transactions.includes(hash), false);
  // it sends nothing: chain2_ adds no bank entry for it
  assert.deepEqual(
    (await call('chain2_getBlockByNumber', N, false)).transactions,
    (await call('chain_getBlockByNumber', N, false)).transactions,
  );
});
