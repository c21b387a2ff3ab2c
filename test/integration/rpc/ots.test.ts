/**
 * Otterscan's ots_* methods against an in-process node: a factory creating contracts with CREATE and
 * CREATE2 (the creator is the factory), internal value transfers, a selfdestruct, a revert with a
 * reason, token transfers, address history paged before and after across many blocks, rollback
 * removing what the index held, and a block store that predates the index answering the clear error.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { getCreate2Address, getCreateAddress, Interface, keccak256, solidityPackedKeccak256 } from 'ethers';
import { parseGenesis } from '../../../src/app/genesis.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { ChainNode } from '../../../src/node/node.ts';
import { openLmdbStore } from '../../../src/storage/kv/lmdb.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { FREE_PORT_FLAGS, makeHome, startNode } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, hex, result, wallets } from './rpc-helpers.ts';

const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, type: 2 };
const probe = new Interface(artifacts.TraceProbe.abi);
const target = new Interface(artifacts.TraceTarget.abi);
const token = new Interface(artifacts.TestToken.abi);
const lower = (s: string) => s.toLowerCase();
const FLAGS = { 'evm.http_port': '0', 'consensus.create-empty-blocks': 'false' };

async function send(url: string, w: number, tx: Record<string, unknown>): Promise<string> {
  const raw = await wallets[w].signTransaction({ chainId: CHAIN_ID, ...fee, gasLimit: 3_000_000, ...tx });
  const r = await result(url, 'eth_sendRawTransactionSync', [raw, 10_000]).catch((e) => {
    throw new Error(`${String(tx.nonce)} ${String(tx.data).slice(0, 12)}: ${e.message}`);
  });
  return r.transactionHash as string;
}

test('ots_* over the address index and the callTracer', async (t) => {
  const home = makeHome(t);
  let node = await startNode(home, FLAGS);
  t.after(() => node.stop());
  let url = node.modules.evmHttp!.url;
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const d = wallets[0].address;
  const targetAt = getCreateAddress({ from: d, nonce: 0 });
  const probeAt = getCreateAddress({ from: d, nonce: 1 });
  const tokenAt = getCreateAddress({ from: d, nonce: 2 });
  const deployTarget = await send(url, 0, { nonce: 0, data: artifacts.TraceTarget.bytecode });
  await send(url, 0, {
    nonce: 1,
    data: artifacts.TraceProbe.bytecode + probe.encodeDeploy([targetAt]).slice(2),
  });
  await send(url, 0, {
    nonce: 2,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 10n ** 24n]).slice(2),
  });
  const salt = '0x' + '11'.repeat(32);
  const factoryTx = await send(url, 0, {
    nonce: 3,
    to: probeAt,
    value: 3n,
    data: probe.encodeFunctionData('deploy', [salt]),
  });
  const childA = getCreateAddress({ from: probeAt, nonce: 1 });
  const childB = getCreate2Address(probeAt, salt, keccak256(artifacts.TraceChild.bytecode));
  const nestedTx = await send(url, 0, {
    nonce: 4,
    to: probeAt,
    data: probe.encodeFunctionData('nested', [5]),
  });
  const failTx = await send(url, 0, {
    nonce: 5,
    to: targetAt,
    data: target.encodeFunctionData('fail', ['boom']),
    gasLimit: 100_000,
  });
  const transfers: string[] = [];
  for (let i = 0; i < 3; i++)
    transfers.push(
      await send(url, 0, {
        nonce: 6 + i,
        to: tokenAt,
        data: token.encodeFunctionData('transfer', [wallets[3].address, 1000n + BigInt(i)]),
      }),
    );

  // the probe funded through a payable call, then an internal CALL and a CREATE that move value
  const fundTx = await send(url, 0, {
    nonce: 9,
    to: probeAt,
    value: 3n * 10n ** 18n,
    data: probe.encodeFunctionData('nested', [7]),
  });
  const overdrawTx = await send(url, 0, {
    nonce: 10,
    to: probeAt,
    data: probe.encodeFunctionData('overdraw', []),
  });
  const overdrawChild = getCreateAddress({ from: probeAt, nonce: 3 });

  await t.test('api level, hasCode, erigon_getHeaderByNumber', async () => {
    assert.equal(await call('ots_getApiLevel'), 8);
    assert.equal(await call('ots_hasCode', probeAt, 'latest'), true);
    assert.equal(await call('ots_hasCode', d, 'latest'), false);
    assert.equal(await call('ots_hasCode', childB, 'latest'), false, 'self-destructed in its creating tx');
    assert.equal(await call('ots_hasCode', probeAt, '0x1'), false, 'not yet deployed at block 1');
    const header = await call('erigon_getHeaderByNumber', 2);
    assert.deepEqual(header, await call('eth_getHeaderByNumber', '0x2'));
  });

  await t.test('ots_getContractCreator: the frame that ran the CREATE, a factory too', async () => {
    assert.deepEqual(await call('ots_getContractCreator', probeAt), {
      hash: await txOfNonce(1),
      creator: lower(d),
    });
    assert.deepEqual(await call('ots_getContractCreator', childA), {
      hash: factoryTx,
      creator: lower(probeAt),
    });
    assert.deepEqual(await call('ots_getContractCreator', childB), {
      hash: factoryTx,
      creator: lower(probeAt),
    });
    assert.equal(await call('ots_getContractCreator', d), null, 'an EOA');
    assert.equal(await call('ots_getContractCreator', wallets[9].address), null, 'never seen');
  });
  async function txOfNonce(n: number) {
    return call('ots_getTransactionBySenderAndNonce', d, hex(n));
  }

  await t.test('ots_getInternalOperations: value transfers, CREATE, CREATE2, SELFDESTRUCT', async () => {
    const ops = await call('ots_getInternalOperations', factoryTx);
    assert.deepEqual(ops, [
      { type: 2, from: lower(probeAt), to: lower(childA), value: '0x1' },
      { type: 3, from: lower(probeAt), to: lower(childB), value: '0x2' },
      { type: 1, from: lower(childB), to: lower(d), value: '0x2' },
    ]);
    assert.deepEqual(await call('ots_getInternalOperations', nestedTx), [], 'calls without value');
    assert.deepEqual(await call('ots_getInternalOperations', overdrawTx), [
      { type: 0, from: lower(probeAt), to: lower(targetAt), value: '0xde0b6b3a7640000' },
      { type: 2, from: lower(probeAt), to: lower(overdrawChild), value: '0xde0b6b3a7640000' },
    ]);
    assert.equal(await call('ots_getInternalOperations', '0x' + '00'.repeat(32)), null);
  });

  await t.test('ots_traceTransaction: the call list with depths', async () => {
    const trace = await call('ots_traceTransaction', nestedTx);
    assert.deepEqual(
      trace.map((e: { type: string; depth: number }) => [e.type, e.depth]),
      [
        ['CALL', 0],
        ['CALL', 1],
        ['STATICCALL', 1],
        ['DELEGATECALL', 1],
        ['STATICCALL', 1], // target.fail is pure: a STATICCALL
        ['STATICCALL', 1], // the sha256 precompile
      ],
    );
    assert.equal(trace[0].from, lower(d));
    assert.equal(trace[0].to, lower(probeAt));
    assert.equal(trace[0].value, '0x0');
    assert.equal(trace.find((e: { type: string }) => e.type === 'DELEGATECALL').value, null);
    assert.equal(trace[1].input.slice(0, 10), target.getFunction('store')!.selector);
    const selfdestruct = (await call('ots_traceTransaction', factoryTx)).find(
      (e: { type: string }) => e.type === 'SELFDESTRUCT',
    );
    assert.deepEqual(selfdestruct, {
      type: 'SELFDESTRUCT',
      depth: 2,
      from: lower(childB),
      to: lower(d),
      value: '0x2',
      input: null,
      output: null,
    });
  });

  await t.test('ots_getTransactionError: the revert data, 0x for a success', async () => {
    const reason =
      '0x08c379a0' +
      new Interface(['function Error(string)']).encodeFunctionData('Error', ['boom']).slice(10);
    assert.equal(await call('ots_getTransactionError', failTx), reason);
    assert.equal(await call('ots_getTransactionError', nestedTx), '0x');
  });

  await t.test('ots_getBlockDetails(ByHash) and ots_getBlockTransactions', async () => {
    const receipt = await call('eth_getTransactionReceipt', transfers[0]);
    const n = Number(receipt.blockNumber);
    const details = await call('ots_getBlockDetails', n);
    const block = await call('eth_getBlockByNumber', hex(n), false);
    const { transactions, ...rest } = block;
    assert.deepEqual(details.block, { ...rest, transactionCount: transactions.length });
    assert.deepEqual(details.issuance, { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' });
    assert.equal(details.totalFees, hex(BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)));
    assert.deepEqual(await call('ots_getBlockDetailsByHash', block.hash), details);
    assert.equal(await call('ots_getBlockDetails', 10_000), null);
    const page = await call('ots_getBlockTransactions', n, 0, 10);
    assert.equal(page.fullblock.transactionCount, 1);
    const tx = await call('eth_getTransactionByHash', transfers[0]);
    assert.deepEqual(
      page.fullblock.transactions,
      [{ ...tx, input: tx.input.slice(0, 10) }],
      'the input cut to its selector',
    );
    const full = await call('eth_getTransactionReceipt', transfers[0]);
    assert.deepEqual(page.receipts, [{ ...full, logs: null, logsBloom: null, timestamp: block.timestamp }]);
    assert.deepEqual((await call('ots_getBlockTransactions', n, 1, 10)).receipts, []);
  });

  await t.test('ots_searchTransactions*: the token, its holder, a factory child; bad params', async () => {
    const tokenTxs = await call('ots_searchTransactionsBefore', tokenAt, 0, 25);
    assert.deepEqual(
      tokenTxs.txs.map((x: { hash: string }) => x.hash),
      [...transfers].reverse().concat([await txOfNonce(2)]),
    );
    assert.equal(tokenTxs.firstPage, true);
    assert.equal(tokenTxs.lastPage, true);
    const newest = await call('eth_getTransactionReceipt', transfers[2]);
    const block = await call('eth_getBlockByNumber', newest.blockNumber, false);
    assert.deepEqual(tokenTxs.receipts[0], { ...newest, timestamp: block.timestamp });
    const childTxs = await call('ots_searchTransactionsAfter', childB, 0, 25);
    assert.deepEqual(
      childTxs.txs.map((x: { hash: string }) => x.hash),
      [factoryTx],
    );
    // the STATICCALL's and DELEGATECALL's target is in the call tree of the nested tx
    const targetTxs = await call('ots_searchTransactionsBefore', targetAt, 0, 25);
    assert.deepEqual(
      targetTxs.txs.map((x: { hash: string }) => x.hash),
      [overdrawTx, fundTx, failTx, nestedTx, deployTarget],
    );
    assert.equal((await error(url, 'ots_searchTransactionsBefore', [tokenAt, 0, 0])).code, -32602);
    assert.equal((await error(url, 'ots_searchTransactionsBefore', ['0x12', 0, 5])).code, -32602);
    assert.equal((await error(url, 'ots_searchTransactionsBefore', [tokenAt, -1, 5])).code, -32602);
  });

  // paging: wallet 1 sends 14 txs over 10 blocks (some blocks hold two)
  const paged: string[] = [];
  let nonce = 0;
  for (let round = 0; round < 10; round++) {
    const count = round % 3 === 0 ? 2 : 1;
    const raws = [];
    for (let i = 0; i < count; i++)
      raws.push(
        await wallets[1].signTransaction({
          chainId: CHAIN_ID,
          ...fee,
          nonce: nonce++,
          to: wallets[2].address,
          value: 1n,
          gasLimit: 21_000,
        }),
      );
    for (const raw of raws.slice(0, -1)) paged.push(await call('eth_sendRawTransaction', raw));
    paged.push((await call('eth_sendRawTransactionSync', raws[raws.length - 1], 10_000)).transactionHash);
  }

  await t.test('paging before and after: whole blocks, firstPage/lastPage', async () => {
    const sender = wallets[1].address;
    const seen: string[] = [];
    let page = await call('ots_searchTransactionsBefore', sender, 0, 3);
    assert.equal(page.firstPage, true);
    for (;;) {
      const heights = page.txs.map((x: { blockNumber: string }) => Number(x.blockNumber));
      assert.ok(page.txs.length >= 3 || page.lastPage);
      seen.push(...page.txs.map((x: { hash: string }) => x.hash));
      if (page.lastPage) break;
      page = await call('ots_searchTransactionsBefore', sender, Math.min(...heights), 3);
      assert.equal(page.firstPage, false);
    }
    assert.deepEqual(seen, [...paged].reverse(), 'every tx once, newest first');

    const forward: string[] = [];
    page = await call('ots_searchTransactionsAfter', sender, 0, 4);
    assert.equal(page.lastPage, true);
    for (;;) {
      forward.unshift(...page.txs.map((x: { hash: string }) => x.hash));
      if (page.firstPage) break;
      const heights = page.txs.map((x: { blockNumber: string }) => Number(x.blockNumber));
      page = await call('ots_searchTransactionsAfter', sender, Math.max(...heights), 4);
    }
    assert.deepEqual(forward, [...paged].reverse());
    for (const [i, h] of paged.entries())
      assert.equal(await call('ots_getTransactionBySenderAndNonce', sender, hex(i)), h);
    assert.equal(await call('ots_getTransactionBySenderAndNonce', sender, hex(paged.length)), null);
    // Otterscan sends numbers: a nonce, and a block number far above the head for "the newest"
    assert.equal(await call('ots_getTransactionBySenderAndNonce', sender, 2), paged[2]);
    assert.deepEqual(
      (await call('ots_searchTransactionsBefore', sender, 2 ** 40, 3)).txs,
      (await call('ots_searchTransactionsBefore', sender, 0, 3)).txs,
    );
    assert.equal(await call('ots_hasCode', probeAt, Number(await call('eth_blockNumber'))), true);
  });

  await t.test('rollback removes the rolled-back heights from the index', async () => {
    const sender = wallets[1].address;
    const before = await call('ots_searchTransactionsBefore', sender, 0, 100);
    const lastHeight = Number(before.txs[0].blockNumber);
    await node.stop();
    const rolled = new ChainNode(nodeOptions(home));
    await rolled.rollback(3);
    node = await startNode(home, FLAGS);
    url = node.modules.evmHttp!.url;
    const latest = Number(await call('eth_blockNumber'));
    assert.equal(latest, lastHeight - 3);
    const after = await call('ots_searchTransactionsBefore', sender, 0, 100);
    const kept = before.txs.filter((x: { blockNumber: string }) => Number(x.blockNumber) <= latest);
    assert.deepEqual(
      after.txs.map((x: { hash: string }) => x.hash),
      kept.map((x: { hash: string }) => x.hash),
    );
    assert.ok(kept.length < before.txs.length);
    const lastNonce = kept.length;
    assert.equal(await call('ots_getTransactionBySenderAndNonce', sender, hex(lastNonce)), null);
    // the same heights are written again by new blocks, and indexed again
    const again = await send(url, 2, { nonce: 0, to: wallets[5].address, value: 7n, gasLimit: 21_000 });
    assert.deepEqual(
      (await call('ots_searchTransactionsBefore', wallets[5].address, 0, 10)).txs.map(
        (x: { hash: string }) => x.hash,
      ),
      [again],
    );
  });

  await t.test('a block store that predates the index: the clear error naming its first height', async () => {
    await node.stop();
    // drop the index as a store written before it existed has none
    const kv = await openLmdbStore(join(home, 'data', 'blockstore'), { sync: true });
    const ops = [];
    for (const [key] of kv.iterateSync!({ gte: Uint8Array.of(0x0a), lt: Uint8Array.of(0x0c) }))
      ops.push({ type: 'del' as const, key });
    ops.push({ type: 'del' as const, key: Uint8Array.of(0x00, 0x41) });
    await kv.write(ops);
    await kv.close();
    node = await startNode(home, FLAGS);
    url = node.modules.evmHttp!.url;
    const tx = await send(url, 3, { nonce: 0, to: wallets[6].address, value: 1n, gasLimit: 21_000 });
    const tx2 = await send(url, 3, { nonce: 1, to: wallets[7].address, value: 1n, gasLimit: 21_000 });
    const first = Number((await call('eth_getTransactionReceipt', tx)).blockNumber);
    const e = await error(url, 'ots_searchTransactionsBefore', [wallets[6].address, 0, 10]);
    assert.equal(e.code, -32000);
    assert.match(
      e.message,
      new RegExp(`needs blocks below ${first}, the first height in this node's address index`),
    );
    const after = await error(url, 'ots_searchTransactionsAfter', [tokenAt, 0, 10]);
    assert.match(after.message, new RegExp(`below ${first}`));
    const byNonce = await error(url, 'eth_getTransactionBySenderAndNonce', [d, '0x0']);
    assert.equal(byNonce.code, -32000);
    assert.match(byNonce.message, new RegExp(`below ${first}`));
    assert.equal(
      await call('ots_getTransactionBySenderAndNonce', wallets[3].address, '0x0'),
      tx,
      'indexed heights answer',
    );
    const creator = await error(url, 'ots_getContractCreator', [probeAt]);
    assert.match(creator.message, new RegExp(`below ${first}`));
    // a page that ends above the index's start needs nothing below it
    const newest = await call('ots_searchTransactionsBefore', wallets[3].address, 0, 1);
    assert.deepEqual(
      newest.txs.map((x: { hash: string }) => x.hash),
      [tx2],
    );
    assert.equal(newest.lastPage, false);
  });
});

function nodeOptions(home: string) {
  const { config } = loadConfig({
    home,
    env: {},
    flags: { 'consensus.engine': 'embedded', ...FREE_PORT_FLAGS, ...FLAGS },
  });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  return { home, config, genesis, logger: silentLogger };
}
