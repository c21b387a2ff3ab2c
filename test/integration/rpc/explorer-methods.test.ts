/**
 * The methods explorers and indexers call beside the common ones, over HTTP against an in-process
 * node: eth_sendRawTransactionSync (EIP-7966, geth 1.16's timeout error), the header objects,
 * eth_getAccount, the raw transaction and receipts, the raw block and header refused with the reason,
 * and rpc_modules as the dispatcher serves it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from 'ethers';
import { CHAIN_ID, error, GWEI, hex, result, rpc, rpcNode, wallets } from './rpc-helpers.ts';

const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
const EMPTY_CODE_HASH = keccak256('0x');
/** Init code returning the 2-byte runtime code 0x6001. */
const INIT = '0x6160016000526002601ef3';

const sign = (nonce: number, tx: Record<string, unknown> = {}) =>
  wallets[0].signTransaction({
    chainId: CHAIN_ID,
    type: 2,
    nonce,
    to: wallets[1].address,
    value: 7n,
    gasLimit: 21000,
    ...fee,
    ...tx,
  });

test('eth_sendRawTransactionSync, headers, eth_getAccount, raw tx and receipts', async (t) => {
  const { node, url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const raw0 = await sign(0);

  const receipt = await call('eth_sendRawTransactionSync', raw0);
  await t.test('answers the receipt of the committed block, as eth_getTransactionReceipt', async () => {
    assert.equal(receipt.transactionHash, keccak256(raw0));
    assert.equal(receipt.status, '0x1');
    assert.deepEqual(await call('eth_getTransactionReceipt', receipt.transactionHash), receipt);
  });

  await t.test('refuses at admission exactly as eth_sendRawTransaction does', async () => {
    const plain = await error(url, 'eth_sendRawTransaction', [raw0]);
    assert.deepEqual(await error(url, 'eth_sendRawTransactionSync', [raw0, 1000]), plain);
    assert.match(plain.message, /nonce too low/);
    // the timeout as a number (EIP-7966) or a hex quantity (geth 1.16, viem): both decode
    assert.deepEqual(await error(url, 'eth_sendRawTransactionSync', [raw0, '0x64']), plain);
    for (const bad of ['soon', '64', -1, 1.5, true]) {
      const e = await error(url, 'eth_sendRawTransactionSync', [raw0, bad]);
      assert.equal(e.code, -32602, JSON.stringify(bad));
      assert.match(e.message, /^invalid argument 1: /);
    }
  });

  const deploy = await call(
    'eth_sendRawTransactionSync',
    await sign(1, { to: null, value: 0n, gasLimit: 100_000, data: INIT }),
    5000,
  );
  const contract = deploy.contractAddress;
  const height = deploy.blockNumber;

  await t.test('eth_getHeaderByNumber / ByHash: the block object without txs, uncles and size', async () => {
    const block = await call('eth_getBlockByNumber', height, false);
    const { transactions, uncles, size, ...header } = block;
    assert.equal(transactions.length, 1);
    assert.deepEqual(uncles, []);
    assert.ok(size);
    assert.deepEqual(await call('eth_getHeaderByNumber', height), header);
    assert.deepEqual(await call('eth_getHeaderByHash', block.hash), header);
    assert.deepEqual(Object.keys(await call('eth_getHeaderByNumber', height)), Object.keys(header));
    assert.equal(await call('eth_getHeaderByNumber', hex(10_000)), null);
    assert.equal(await call('eth_getHeaderByHash', '0x' + '11'.repeat(32)), null);
    assert.equal((await call('eth_getHeaderByNumber', '0x0')).number, '0x0');
    assert.equal((await error(url, 'eth_getHeaderByNumber', ['2'])).code, -32602);
  });

  await t.test('eth_getAccount: balance, nonce and codeHash at a block, no storageRoot', async () => {
    const sender = wallets[0].address;
    const now = await call('eth_getAccount', sender, 'latest');
    assert.deepEqual(now, {
      balance: await call('eth_getBalance', sender, 'latest'),
      nonce: '0x2',
      codeHash: EMPTY_CODE_HASH,
    });
    const before = await call('eth_getAccount', sender, receipt.blockNumber);
    assert.equal(before.nonce, '0x1');
    const code = await call('eth_getCode', contract, 'latest');
    assert.equal(code, '0x6001');
    assert.deepEqual(await call('eth_getAccount', contract, 'latest'), {
      balance: '0x0',
      nonce: '0x1',
      codeHash: keccak256(code),
    });
    const nobody = await call('eth_getAccount', '0x' + '42'.repeat(20), 'latest');
    assert.deepEqual(nobody, { balance: '0x0', nonce: '0x0', codeHash: EMPTY_CODE_HASH });
  });

  await t.test('debug_getRawTransaction: the signed EIP-2718 bytes', async () => {
    assert.equal(await call('debug_getRawTransaction', receipt.transactionHash), raw0);
    // geth's empty bytes, not null
    assert.equal(await call('debug_getRawTransaction', '0x' + '22'.repeat(32)), '0x');
  });

  await t.test('debug_getRawReceipts: each receipt typed and RLP-encoded, by number or hash', async () => {
    const raws = await call('debug_getRawReceipts', receipt.blockNumber);
    assert.equal(raws.length, 1);
    const bytes = Buffer.from(raws[0].slice(2), 'hex');
    assert.equal(bytes[0], 2); // the tx's EIP-2718 type
    const [status, cumulative, bloom, logs] = RLP.decode(bytes.subarray(1)) as Uint8Array[];
    assert.equal(Buffer.from(status).toString('hex'), '01');
    assert.equal(
      BigInt('0x' + (Buffer.from(cumulative).toString('hex') || '0')),
      BigInt(receipt.cumulativeGasUsed),
    );
    assert.equal('0x' + Buffer.from(bloom).toString('hex'), receipt.logsBloom);
    assert.deepEqual(logs, []);
    assert.deepEqual(await call('debug_getRawReceipts', receipt.blockHash), raws);
    assert.deepEqual(await call('debug_getRawReceipts', '0x0'), []);
  });

  await t.test('debug_getRawBlock / debug_getRawHeader are refused with the reason', async () => {
    for (const m of ['debug_getRawBlock', 'debug_getRawHeader']) {
      const e = await error(url, m, [height]);
      assert.equal(e.code, -32601);
      assert.match(e.message, /CometBFT's header hash, not the keccak-256 of an RLP-encoded Ethereum header/);
    }
  });

  await t.test('rpc_modules: the namespaces served, at "1.0"', async () => {
    assert.deepEqual(await call('rpc_modules'), {
      // the default [evm] enabled_legacy_chain_apis lets a few chain_ methods through
      chain: '1.0',
      debug: '1.0',
      // Otterscan's namespace and the one Erigon method it asks for
      erigon: '1.0',
      eth: '1.0',
      net: '1.0',
      ots: '1.0',
      rpc: '1.0',
      trace: '1.0',
      txpool: '1.0',
      web3: '1.0',
    });
  });

  await t.test('no block within the timeout: code 4 with the hash, then the receipt once mined', async () => {
    await node.modules.engine.producer!.stop();
    const raw = await sign(2);
    const hash = keccak256(raw);
    const t0 = Date.now();
    const e = await error(url, 'eth_sendRawTransactionSync', [raw, 100]);
    assert.ok(Date.now() - t0 < 5000);
    assert.deepEqual(e, {
      code: 4,
      message: "The transaction was added to the transaction pool but wasn't processed in 100ms",
      data: hash,
    });
    assert.equal(await call('debug_getRawTransaction', hash), raw, 'a pooled tx is served too');
    // the wait ends with the block that holds the tx
    const waiting = rpc(url, 'eth_sendRawTransactionSync', [await sign(3), 30_000]);
    await new Promise((r) => setTimeout(r, 100));
    node.modules.engine.producer!.start();
    const answer = await waiting;
    assert.equal(answer.error, undefined);
    assert.equal(answer.result.transactionHash, keccak256(await sign(3)));
    assert.ok(await call('eth_getTransactionReceipt', hash));
  });

  await t.test('a stopping node ends a wait at once', async () => {
    await node.modules.engine.producer!.stop();
    const waiting = rpc(url, 'eth_sendRawTransactionSync', [await sign(4), 60_000]);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await node.stop();
    const answer = await waiting;
    assert.ok(Date.now() - t0 < 5000);
    assert.match(answer.error!.message, /node is stopping/);
  });
});

test('rpc_modules follows the legacy gate and the deny list', async (t) => {
  const a = await rpcNode(t, {
    'evm.enabled_legacy_chain_apis': 'chain2_getBlockReceipts',
    'evm.deny_list': 'txpool_content,txpool_contentFrom,txpool_inspect,txpool_status',
  });
  const modules = await result(a.url, 'rpc_modules');
  assert.equal(modules.chain2, '1.0');
  assert.equal(modules.chain, undefined, 'no chain_ method is let through');
  assert.equal(modules.txpool, undefined, 'every txpool_ method is deny-listed');
  assert.equal(modules.eth, '1.0');
  const b = await rpcNode(t, { 'evm.enabled_legacy_chain_apis': '' });
  const none = await result(b.url, 'rpc_modules');
  assert.equal(none.chain, undefined);
  assert.equal(none.chain2, undefined);
  assert.equal(none.txpool, '1.0');
});

test('with RPC reader threads the calls they forward answer as the main thread: sync send, rpc_modules', async (t) => {
  const { node, url } = await rpcNode(t, { 'evm.http_reader_threads': '2' });
  assert.ok(node.modules.rpcReaders, 'the reader threads are running');
  const raw = await sign(0);
  // several connections, so the threads sharing the port take some of them
  const answers = await Promise.all([
    result(url, 'eth_sendRawTransactionSync', [raw, 10_000]),
    ...Array.from({ length: 4 }, () => result(url, 'rpc_modules')),
  ]);
  assert.equal(answers[0].transactionHash, keccak256(raw));
  for (const modules of answers.slice(1)) assert.equal(modules.eth, '1.0');
  assert.equal(answers[1].chain, '1.0', 'the HTTP dispatcher, legacy gate included');
  // the address index's methods too, forwarded from any connection
  const sender = wallets[0].address;
  const pages = await Promise.all(
    Array.from({ length: 4 }, () => result(url, 'ots_searchTransactionsBefore', [sender, 0, 5])),
  );
  for (const page of pages)
    assert.deepEqual(
      page.txs.map((x: { hash: string }) => x.hash),
      [keccak256(raw)],
    );
});
