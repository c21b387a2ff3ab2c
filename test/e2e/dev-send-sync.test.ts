/**
 * eth_sendRawTransactionSync (EIP-7966) on `chaind dev` spawned as a user runs it: with automine the
 * receipt comes in the answer; with automine off a 100 ms timeout answers geth's code 4 error with
 * the tx hash, and once evm_mine commits the block the receipt is there. rpc_modules lists the dev
 * namespaces too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak256, Wallet } from 'ethers';
import { startDev } from '../helpers/dev-banner.ts';
import { error, result } from '../helpers/json-rpc.ts';

const GWEI = 10n ** 9n;

test('chaind dev: eth_sendRawTransactionSync answers the receipt, or code 4 with the hash on timeout', async (t) => {
  const { banner } = await startDev(t);
  const url = banner.evmUrl;
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const wallet = new Wallet(banner.accounts[0].key);
  const chainId = BigInt(await call('eth_chainId'));
  const sign = (nonce: number) =>
    wallet.signTransaction({
      chainId,
      type: 2,
      nonce,
      to: banner.accounts[1].evm,
      value: 1n,
      gasLimit: 21000,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
    });

  const raw0 = await sign(0);
  const receipt = await call('eth_sendRawTransactionSync', raw0);
  assert.equal(receipt.transactionHash, keccak256(raw0));
  assert.equal(receipt.status, '0x1');
  assert.deepEqual(await call('eth_getTransactionReceipt', receipt.transactionHash), receipt);

  await call('evm_setAutomine', false);
  const raw1 = await sign(1);
  const hash = keccak256(raw1);
  assert.deepEqual(await error(url, 'eth_sendRawTransactionSync', [raw1, 100]), {
    code: 4,
    message: "The transaction was added to the transaction pool but wasn't processed in 100ms",
    data: hash,
  });
  assert.equal(await call('eth_getTransactionReceipt', hash), null);
  await call('evm_mine');
  const mined = await call('eth_getTransactionReceipt', hash);
  assert.equal(mined.status, '0x1');
  assert.equal(BigInt(mined.blockNumber), BigInt(receipt.blockNumber) + 1n);

  const modules = await call('rpc_modules');
  for (const ns of ['eth', 'net', 'web3', 'debug', 'txpool', 'rpc', 'evm', 'hardhat', 'anvil'])
    assert.equal(modules[ns], '1.0', `${ns} in ${JSON.stringify(modules)}`);
});
