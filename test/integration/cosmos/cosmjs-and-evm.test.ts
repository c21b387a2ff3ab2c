/**
 * The CosmJS-and-EVM client scenario end to end over the node's real listeners: CosmJS talks to the
 * consensus RPC, ethers to the EVM JSON-RPC, and both see the same balances.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient, StargateClient } from '@cosmjs/stargate';
import { JsonRpcProvider, Wallet, getAddress, parseEther } from 'ethers';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';

const UCHAIN_WEI = 10n ** 12n;
const hexAddress = (bytes: Uint8Array) => getAddress('0x' + Buffer.from(bytes).toString('hex'));
const FEE = { amount: [{ denom: 'uchain', amount: '300' }], gas: '300000' };

test('CosmJS sends tokens through the consensus RPC; eth_getBalance shows the same amounts in wei; a fresh key associates on its first signed tx', async (t) => {
  const node = await startNode(makeHome(t));
  t.after(() => node.stop());
  const rpcUrl = `http://127.0.0.1:${node.modules.consensusRpc!.address.port}`;
  const eth = new JsonRpcProvider(node.modules.evmHttp!.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 50,
  });
  t.after(() => eth.destroy());
  // CosmJS reads the latest block hash from /status, which is empty until the first block exists.
  await until(() => node.modules.chain.latestHeight >= 1);

  const alice = DEV_ACCOUNTS[0];
  const aliceWallet = await DirectSecp256k1Wallet.fromKey(alice.privateKey, 'chain');
  const signing = await SigningStargateClient.connectWithSigner(rpcUrl, aliceWallet);
  t.after(() => signing.disconnect());
  const query = await StargateClient.connect(rpcUrl);
  t.after(() => query.disconnect());

  const aliceBech = toAccAddress(alice.cosmosAddress);
  assert.deepEqual(await query.getBalance(aliceBech, 'uchain'), { denom: 'uchain', amount: '10000000000' });

  const fresh = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x61)));
  const freshBech = toAccAddress(fresh.cosmosAddress);
  const sent = await signing.sendTokens(
    aliceBech,
    freshBech,
    [{ denom: 'uchain', amount: '2500000' }],
    FEE,
    'from cosmjs',
  );
  assert.equal(sent.code, 0, sent.rawLog);

  const aliceUchain = BigInt((await query.getBalance(aliceBech, 'uchain')).amount);
  assert.equal(aliceUchain, 10_000_000_000n - 2_500_000n - 300n);
  assert.equal((await query.getBalance(freshBech, 'uchain')).amount, '2500000');
  // Alice's EVM address is associated with her Cosmos account; the fresh key's account is read at
  // the EVM address with the same 20 bytes (its cast) until the key signs something.
  assert.equal(await eth.getBalance(hexAddress(alice.evmAddress)), aliceUchain * UCHAIN_WEI);
  assert.equal(await eth.getBalance(hexAddress(fresh.cosmosAddress)), 2_500_000n * UCHAIN_WEI);
  assert.equal(await eth.getBalance(hexAddress(fresh.evmAddress)), 0n);

  // Ether sent to the fresh key's real EVM address lands on its cast account…
  const funder = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[1].privateKey).toString('hex'), eth);
  await (
    await funder.sendTransaction({
      to: hexAddress(fresh.evmAddress),
      value: parseEther('1'),
      gasLimit: 21000,
    })
  ).wait();
  assert.equal(await eth.getBalance(hexAddress(fresh.evmAddress)), parseEther('1'));

  // …and its first signed Cosmos tx links both addresses and merges the two balances.
  const freshWallet = await DirectSecp256k1Wallet.fromKey(fresh.privateKey, 'chain');
  const freshSigning = await SigningStargateClient.connectWithSigner(rpcUrl, freshWallet);
  t.after(() => freshSigning.disconnect());
  const back = await freshSigning.sendTokens(
    freshBech,
    aliceBech,
    [{ denom: 'uchain', amount: '1000' }],
    FEE,
  );
  assert.equal(back.code, 0, back.rawLog);
  const merged = 2_500_000n - 1_000n - 300n + 1_000_000n;
  assert.equal((await query.getBalance(freshBech, 'uchain')).amount, merged.toString());
  assert.equal(
    await eth.getBalance(hexAddress(fresh.evmAddress)),
    merged * UCHAIN_WEI,
    'the EVM address now reads the Cosmos account',
  );
});
