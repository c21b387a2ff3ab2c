/**
 * Sending and transaction lookup over HTTP: pending txs from the mempool, mined tx objects of every
 * type and receipts with exact fields, and every eth_sendRawTransaction rejection with geth's wording.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { getCreateAddress, Interface, Transaction, Wallet } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const ZERO_BLOOM = '0x' + '00'.repeat(256);
const bytes = (s: string) => Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
const lower = (a: string) => a.toLowerCase();

/** The fields every tx object shares, from the signed tx itself. */
function signedFields(raw: string) {
  const tx = Transaction.from(raw);
  const sig = tx.signature!;
  return {
    tx,
    from: lower(tx.from!),
    gas: hex(tx.gasLimit),
    hash: tx.hash!,
    input: tx.data,
    nonce: hex(tx.nonce),
    to: tx.to ? lower(tx.to) : null,
    value: hex(tx.value),
    type: hex(tx.type!),
    r: hex(BigInt(sig.r)),
    s: hex(BigInt(sig.s)),
    yParity: hex(sig.yParity),
  };
}

test('eth_sendRawTransaction, pending and mined lookups, receipts', async (t) => {
  const { node, url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const w0 = wallets[0].address;

  const raw1559 = await wallets[0].signTransaction({
    chainId: CHAIN_ID,
    type: 2,
    nonce: 0,
    to: wallets[1].address,
    value: 5n,
    gasLimit: 21000,
    ...fee,
  });
  const f = signedFields(raw1559);

  await t.test('a tx waiting in the mempool is served with null block fields', async () => {
    await node.modules.engine.producer!.stop();
    assert.equal(await call('eth_sendRawTransaction', raw1559), f.hash);
    const pending = {
      blockHash: null,
      blockNumber: null,
      blockTimestamp: null,
      from: f.from,
      gas: '0x5208',
      gasPrice: hex(10n * GWEI), // the fee cap while pending, as geth
      maxFeePerGas: hex(10n * GWEI),
      maxPriorityFeePerGas: hex(GWEI),
      hash: f.hash,
      input: '0x',
      nonce: '0x0',
      to: f.to,
      transactionIndex: null,
      value: '0x5',
      type: '0x2',
      accessList: [],
      chainId: hex(CHAIN_ID),
      v: f.yParity,
      r: f.r,
      s: f.s,
      yParity: f.yParity,
    };
    assert.deepEqual(await call('eth_getTransactionByHash', f.hash), pending);
    assert.equal(await call('eth_getTransactionReceipt', f.hash), null);
    assert.equal(await call('eth_getTransactionCount', w0, 'pending'), '0x1');
    assert.equal(await call('eth_getTransactionCount', w0, 'latest'), '0x0');
    assert.deepEqual(await error(url, 'eth_sendRawTransaction', [raw1559]), {
      code: -32000,
      message: 'already known',
    });
    const cheapReplacement = await wallets[0].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce: 0,
      to: wallets[1].address,
      value: 6n,
      gasLimit: 21000,
      maxFeePerGas: 10n * GWEI + 1n,
      maxPriorityFeePerGas: GWEI + 1n,
    });
    assert.deepEqual(await error(url, 'eth_sendRawTransaction', [cheapReplacement]), {
      code: -32000,
      message: 'replacement transaction underpriced',
    });
    node.modules.engine.producer!.start();
  });

  const receipt = await waitReceipt(url, f.hash);
  const height = Number(receipt.blockNumber);
  const block = await call('eth_getBlockByNumber', hex(height), false);

  await t.test('a mined tx and its receipt carry exact fields', async () => {
    const ctx = { blockHash: block.hash, blockNumber: hex(height), blockTimestamp: block.timestamp };
    assert.deepEqual(await call('eth_getTransactionByHash', f.hash), {
      ...ctx,
      from: f.from,
      gas: '0x5208',
      gasPrice: hex(2n * GWEI), // effective: base fee 1 gwei + tip 1 gwei
      maxFeePerGas: hex(10n * GWEI),
      maxPriorityFeePerGas: hex(GWEI),
      hash: f.hash,
      input: '0x',
      nonce: '0x0',
      to: f.to,
      transactionIndex: '0x0',
      value: '0x5',
      type: '0x2',
      accessList: [],
      chainId: hex(CHAIN_ID),
      v: f.yParity,
      r: f.r,
      s: f.s,
      yParity: f.yParity,
    });
    assert.deepEqual(receipt, {
      blockHash: block.hash,
      blockNumber: hex(height),
      contractAddress: null,
      cumulativeGasUsed: '0x5208',
      effectiveGasPrice: hex(2n * GWEI),
      from: f.from,
      gasUsed: '0x5208',
      logs: [],
      logsBloom: ZERO_BLOOM,
      status: '0x1',
      to: f.to,
      transactionHash: f.hash,
      transactionIndex: '0x0',
      type: '0x2',
    });
    assert.equal(await call('eth_getTransactionCount', w0, 'pending'), '0x1');
    assert.equal(await call('eth_getTransactionCount', w0, 'latest'), '0x1');
  });

  await t.test('legacy (EIP-155), access-list and set-code txs; a creation receipt', async () => {
    const legacyRaw = await wallets[1].signTransaction({
      chainId: CHAIN_ID,
      type: 0,
      nonce: 0,
      to: wallets[2].address,
      value: 7n,
      gasLimit: 21000,
      gasPrice: 3n * GWEI,
    });
    const slot = '0x' + '00'.repeat(31) + '01';
    const alRaw = await wallets[2].signTransaction({
      chainId: CHAIN_ID,
      type: 1,
      nonce: 0,
      to: wallets[3].address,
      value: 8n,
      gasLimit: 30000,
      gasPrice: 2n * GWEI,
      accessList: [{ address: wallets[3].address, storageKeys: [slot] }],
    });
    const auth = await wallets[4].authorize({ address: wallets[5].address, nonce: 1, chainId: CHAIN_ID });
    const setCodeRaw = await wallets[4].signTransaction({
      chainId: CHAIN_ID,
      type: 4,
      nonce: 0,
      to: wallets[4].address,
      gasLimit: 100_000,
      authorizationList: [auth],
      ...fee,
    });
    const deployRaw = await wallets[3].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce: 0,
      gasLimit: 2_000_000,
      data: artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 5n]).slice(2),
      ...fee,
    });
    const sent = [];
    for (const raw of [legacyRaw, alRaw, setCodeRaw, deployRaw])
      sent.push(await call('eth_sendRawTransaction', raw));
    const receipts = await Promise.all(sent.map((x) => waitReceipt(url, x)));
    assert.deepEqual(
      receipts.map((r) => r.status),
      ['0x1', '0x1', '0x1', '0x1'],
    );
    const [legacy, al, setCode, deploy] = await Promise.all(
      sent.map((x) => call('eth_getTransactionByHash', x)),
    );

    const l = signedFields(legacyRaw);
    // EIP-155 v = chainId·2 + 35 + parity; a legacy tx has no yParity field.
    assert.equal(legacy.v, hex(CHAIN_ID * 2n + 35n + BigInt(l.yParity)));
    assert.equal(legacy.chainId, hex(CHAIN_ID));
    assert.equal(legacy.gasPrice, hex(3n * GWEI));
    assert.equal('yParity' in legacy, false);
    assert.equal('accessList' in legacy, false);
    assert.equal('maxFeePerGas' in legacy, false);
    assert.equal(legacy.type, '0x0');
    assert.equal(receipts[0].effectiveGasPrice, hex(3n * GWEI));

    assert.deepEqual(al.accessList, [{ address: lower(wallets[3].address), storageKeys: [slot] }]);
    assert.equal(al.type, '0x1');
    assert.equal(al.gasPrice, hex(2n * GWEI));
    assert.equal(al.yParity, al.v);
    assert.equal('maxFeePerGas' in al, false);

    assert.equal(setCode.type, '0x4');
    assert.deepEqual(setCode.authorizationList, [
      {
        chainId: hex(CHAIN_ID),
        address: lower(wallets[5].address),
        nonce: '0x1',
        yParity: hex(auth.signature.yParity),
        r: hex(BigInt(auth.signature.r)),
        s: hex(BigInt(auth.signature.s)),
      },
    ]);

    assert.equal(deploy.to, null);
    assert.equal(receipts[3].to, null);
    assert.equal(
      receipts[3].contractAddress,
      lower(getCreateAddress({ from: wallets[3].address, nonce: 0 })),
    );
    assert.equal(receipts[3].logs.length, 1, 'the constructor emits Transfer');
    assert.equal(receipts[3].logs[0].address, receipts[3].contractAddress);
    for (const [i, x] of [legacy, al, setCode, deploy].entries()) {
      assert.equal(x.blockNumber, receipts[i].blockNumber);
      assert.equal(x.transactionIndex, receipts[i].transactionIndex);
      assert.equal(x.from, lower(Transaction.from([legacyRaw, alRaw, setCodeRaw, deployRaw][i]).from!));
    }
  });

  await t.test('every rejection of eth_sendRawTransaction is -32000 with geth wording', async () => {
    const base = { chainId: CHAIN_ID, type: 2, to: wallets[9].address, value: 1n, gasLimit: 21000, ...fee };
    const sign = (w: Pick<Wallet, 'signTransaction'>, tx: object) => w.signTransaction({ ...base, ...tx });
    const broke = Wallet.createRandom();
    const unprotected = (() => {
      const u = Transaction.from({
        type: 0,
        nonce: 0,
        gasLimit: 21000n,
        gasPrice: 2n * GWEI,
        to: wallets[9].address,
        value: 1n,
      });
      const sig = wallets[6].signingKey.sign(u.unsignedHash);
      const enc = RLP.encode([
        0,
        2n * GWEI,
        21000,
        bytes(wallets[9].address),
        1,
        new Uint8Array(0),
        sig.v,
        bytes(sig.r),
        bytes(sig.s),
      ]);
      return '0x' + Buffer.from(enc).toString('hex');
    })();
    const oversized = await sign(wallets[6], {
      nonce: 0,
      gasLimit: 29_000_000,
      data: '0x' + '00'.repeat(131_000),
    });
    const cases: [string, string][] = [
      [await sign(wallets[0], { nonce: 0, value: 99n }), 'nonce too low: next nonce 1, tx nonce 0'],
      [
        await sign(broke, { nonce: 0 }),
        `insufficient funds for gas * price + value: balance 0, tx cost ${21000n * 10n * GWEI + 1n}`,
      ],
      [await sign(wallets[6], { nonce: 0, chainId: 1n }), 'invalid chain id: have 1 want 713714'],
      [
        await sign(wallets[6], { nonce: 0, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
        'max fee per gas less than block base fee',
      ],
      [await sign(wallets[6], { nonce: 0, gasLimit: 30_000_001 }), 'exceeds block gas limit'],
      [await sign(wallets[6], { nonce: 0, gasLimit: 20_000 }), 'intrinsic gas too low'],
      [unprotected, 'only replay-protected (EIP-155) transactions allowed over RPC'],
      ['0x03c0', 'transaction type not supported'],
      ['0x', 'typed transaction too short'],
      [raw1559, 'nonce too low: next nonce 1, tx nonce 0'],
      // geth's txMaxSize, whatever the block's byte limit
      [oversized, `oversized data: transaction size ${(oversized.length - 2) / 2}, limit 131072`],
    ];
    for (const [raw, message] of cases)
      assert.deepEqual(await error(url, 'eth_sendRawTransaction', [raw]), { code: -32000, message }, message);
    const garbage = await error(url, 'eth_sendRawTransaction', ['0xdeadbeef']);
    assert.equal(garbage.code, -32000);
    assert.match(garbage.message, /^rlp: /);
  });

  await t.test('unknown hashes are null', async () => {
    const unknown = '0x' + '12'.repeat(32);
    assert.equal(await call('eth_getTransactionByHash', unknown), null);
    assert.equal(await call('eth_getTransactionReceipt', unknown), null);
  });
});
