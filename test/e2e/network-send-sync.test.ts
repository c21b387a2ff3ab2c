/**
 * eth_sendRawTransactionSync in network mode: the tx goes to CometBFT through the RPC node, and the
 * answer is the receipt once that node commits the block holding it (the same receipt the validator
 * serves).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak256, Wallet } from 'ethers';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const GWEI = 10n ** 9n;

test('network mode: eth_sendRawTransactionSync on an RPC node answers the committed receipt', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const net = await TestNetwork.create(t, { validators: 1, rpcNodes: 1 });
  net.start('validator0');
  net.start('rpc0');
  await net.waitHeight('rpc0', 2);
  const wallet = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[0].privateKey).toString('hex'));
  const chainId = BigInt((await net.evm('rpc0', 'eth_chainId')).result);
  const raw = await wallet.signTransaction({
    chainId,
    type: 2,
    nonce: 0,
    to: '0x' + Buffer.from(DEV_ACCOUNTS[1].evmAddress).toString('hex'),
    value: 1n,
    gasLimit: 21000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  const answer = await net.evm('rpc0', 'eth_sendRawTransactionSync', [raw, 8000]);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  assert.equal(answer.result.transactionHash, keccak256(raw));
  assert.equal(answer.result.status, '0x1');
  await net.waitHeight('validator0', Number(answer.result.blockNumber));
  const onValidator = await net.evm('validator0', 'eth_getTransactionReceipt', [keccak256(raw)]);
  assert.deepEqual(onValidator.result, answer.result);
});
