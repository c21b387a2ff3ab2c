/**
 * The Cosmos/EVM tx lookups of the legacy surface against mined txs: chain_getCosmosTx (the wrapping
 * TxRaw in the REST API's JSON form, compared with the REST API's own answer), chain_getEvmTx both
 * for a wrapped EVM tx and for a bank send, chain_getTransactionErrorByHash and chain_getVMError for
 * a success, a revert with a reason and an out-of-gas failure, and chain_getTransactionCount.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { getCreateAddress, Interface, parseEther } from 'ethers';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { error, GWEI, result, sendAndWait, wallets } from '../rpc/rpc-helpers.ts';
import { COSMOS_FEE, cosmjsSigner, legacyNode } from './legacy-helpers.ts';

const fee = { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
const token = new Interface(artifacts.TestToken.abi);
const UNKNOWN = '0x' + '22'.repeat(32);

test('chain_getCosmosTx, chain_getEvmTx, chain_getTransactionErrorByHash, chain_getVMError, chain_getTransactionCount', async (t) => {
  const { url, consensusUrl, restUrl } = await legacyNode(t);
  const w = wallets[3];
  const other = wallets[4].address;

  const transfer = await sendAndWait(url, w, {
    ...fee,
    nonce: 0,
    to: other,
    value: parseEther('1'),
    gasLimit: 21000,
  });
  const deploy = await sendAndWait(url, w, {
    ...fee,
    nonce: 1,
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
  });
  const tokenAddress = getCreateAddress({ from: w.address, nonce: 1 });
  assert.equal(deploy.receipt.status, '0x1');
  // transferFrom without an allowance: require(..., "allowance exceeded")
  const reverted = await sendAndWait(url, w, {
    ...fee,
    nonce: 2,
    to: tokenAddress,
    data: token.encodeFunctionData('transferFrom', [other, w.address, 1n]),
    gasLimit: 100_000,
  });
  assert.equal(reverted.receipt.status, '0x0');
  // enough gas to be included, not enough to run the transfer
  const outOfGas = await sendAndWait(url, w, {
    ...fee,
    nonce: 3,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [other, 1n]),
    gasLimit: 24_000,
  });
  assert.equal(outOfGas.receipt.status, '0x0');

  await t.test('chain_getCosmosTx: the wrapping TxRaw, as the REST API prints it', async () => {
    const wrapped = wrapEthTransaction(Buffer.from(transfer.raw.slice(2), 'hex'));
    const cosmosHash = createHash('sha256').update(wrapped).digest('hex').toUpperCase();
    const got = await result(url, 'chain_getCosmosTx', [transfer.hash]);
    const expectedTx = {
      body: {
        messages: [
          {
            '@type': '/chain.evm.v1.MsgEVMTransaction',
            data: Buffer.from(transfer.raw.slice(2), 'hex').toString('base64'),
          },
        ],
        memo: '',
        timeout_height: '0',
        extension_options: [],
        non_critical_extension_options: [],
      },
      auth_info: { signer_infos: [], fee: null, tip: null },
      signatures: [],
    };
    assert.deepEqual(got, {
      hash: cosmosHash,
      height: String(Number(transfer.receipt.blockNumber)),
      index: Number(transfer.receipt.transactionIndex),
      tx: expectedTx,
    });
    const rest = await fetch(`${restUrl}/cosmos/tx/v1beta1/txs/${cosmosHash}`);
    assert.equal(rest.status, 200);
    const restBody = (await rest.json()) as { tx: unknown; tx_response: { height: string; txhash: string } };
    assert.deepEqual(got.tx, restBody.tx, 'the same JSON as the REST API');
    assert.equal(restBody.tx_response.txhash, cosmosHash);
    assert.equal(restBody.tx_response.height, got.height);

    // chain_getEvmTx goes back, from the Cosmos hash in either case, with or without 0x
    assert.equal(await result(url, 'chain_getEvmTx', [cosmosHash]), transfer.hash);
    assert.equal(await result(url, 'chain_getEvmTx', ['0x' + cosmosHash.toLowerCase()]), transfer.hash);

    assert.deepEqual(await error(url, 'chain_getCosmosTx', [UNKNOWN]), {
      code: -32000,
      message: `EVM transaction ${UNKNOWN} not found`,
    });
    const bad = await error(url, 'chain_getCosmosTx', ['0x12']);
    assert.equal(bad.code, -32602);
  });

  await t.test('chain_getEvmTx: a bank send carries no EVM tx; unknown and malformed hashes', async () => {
    const alice = DEV_ACCOUNTS[0];
    const client = await cosmjsSigner(t, consensusUrl, alice.privateKey);
    const sent = await client.sendTokens(
      toAccAddress(alice.cosmosAddress),
      toAccAddress(DEV_ACCOUNTS[5].cosmosAddress),
      [{ denom: 'uchain', amount: '5' }],
      COSMOS_FEE,
    );
    assert.equal(sent.code, 0, sent.rawLog);
    assert.deepEqual(await error(url, 'chain_getEvmTx', [sent.transactionHash]), {
      code: -32000,
      message: `Cosmos transaction ${sent.transactionHash} carries no EVM transaction`,
    });
    // by its synthetic hash (0x + lower-case SHA-256), a Cosmos tx's failure is its result log
    const synthetic = '0x' + sent.transactionHash.toLowerCase();
    assert.equal(await result(url, 'chain_getTransactionErrorByHash', [synthetic]), '');
    assert.equal(await result(url, 'chain_getVMError', [synthetic]), '');
    const poor = await cosmjsSigner(t, consensusUrl, DEV_ACCOUNTS[6].privateKey);
    const tooMuch = await poor.sendTokens(
      toAccAddress(DEV_ACCOUNTS[6].cosmosAddress),
      toAccAddress(alice.cosmosAddress),
      [{ denom: 'uchain', amount: '99999999999' }],
      COSMOS_FEE,
    );
    assert.equal(tooMuch.code, 5, 'included, failed in its message: insufficient funds');
    const failedHash = '0x' + tooMuch.transactionHash.toLowerCase();
    assert.equal(await result(url, 'chain_getTransactionErrorByHash', [failedHash]), tooMuch.rawLog);
    assert.equal(await result(url, 'chain_getVMError', [failedHash]), tooMuch.rawLog);

    assert.deepEqual(await error(url, 'chain_getEvmTx', ['AB'.repeat(32)]), {
      code: -32000,
      message: `Cosmos transaction ${'AB'.repeat(32)} not found`,
    });
    assert.deepEqual(await error(url, 'chain_getEvmTx', ['xyz']), {
      code: -32602,
      message:
        'invalid argument 0: invalid Cosmos tx hash "xyz": want 64 hex digits (the SHA-256 of the TxRaw)',
    });
  });

  await t.test('chain_getTransactionErrorByHash and chain_getVMError', async () => {
    for (const ok of [transfer.hash, deploy.hash]) {
      assert.equal(await result(url, 'chain_getTransactionErrorByHash', [ok]), '');
      assert.equal(await result(url, 'chain_getVMError', [ok]), '');
    }
    assert.equal(
      await result(url, 'chain_getTransactionErrorByHash', [reverted.hash]),
      'execution reverted: allowance exceeded',
    );
    assert.equal(await result(url, 'chain_getVMError', [reverted.hash]), 'execution reverted');
    assert.equal(await result(url, 'chain_getTransactionErrorByHash', [outOfGas.hash]), 'out of gas');
    assert.equal(await result(url, 'chain_getVMError', [outOfGas.hash]), 'out of gas');
    for (const m of ['chain_getTransactionErrorByHash', 'chain_getVMError']) {
      assert.deepEqual(await error(url, m, [UNKNOWN]), { code: -32000, message: 'receipt not found' });
    }
  });

  await t.test('chain_getTransactionCount answers as eth_getTransactionCount', async () => {
    const height = '0x' + Number(deploy.receipt.blockNumber).toString(16);
    for (const params of [
      [w.address, 'latest'],
      [w.address, 'pending'],
      [w.address, height],
      [other, 'latest'],
    ]) {
      assert.equal(
        await result(url, 'chain_getTransactionCount', params),
        await result(url, 'eth_getTransactionCount', params),
      );
    }
    assert.equal(await result(url, 'chain_getTransactionCount', [w.address, 'latest']), '0x4');
    assert.deepEqual(
      await error(url, 'chain_getTransactionCount', [w.address]),
      await error(url, 'eth_getTransactionCount', [w.address]),
    );
  });
});
