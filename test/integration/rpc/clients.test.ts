/**
 * Client compatibility over HTTP: an ethers v6 JsonRpcProvider + Wallet + Contract scenario and a viem
 * public client scenario against the same node. Writes pass an explicit gasLimit and results
 * are read from receipts and logs, so the scenario checks what was mined, not what a call predicts
 * (calls and estimates have their own tests).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Contract, ContractFactory, JsonRpcProvider, parseEther, Wallet, type EventLog } from 'ethers';
import { createPublicClient, defineChain, http as viemHttp, parseAbiItem, type Hex } from 'viem';
import { artifacts } from '../../helpers/dev-chain.ts';
import { CHAIN_ID, rpcNode, wallets } from './rpc-helpers.ts';

test('ethers v6 and viem work against the node unchanged', async (t) => {
  const { url } = await rpcNode(t);
  const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const alice = new Wallet(wallets[0].privateKey, provider);
  const bob = wallets[1].address;
  let tokenAddress = '';
  let transferBlock = 0n;

  await t.test('ethers: network, balance, send + wait, deploy, contract write, events', async () => {
    const network = await provider.getNetwork();
    assert.equal(network.chainId, CHAIN_ID);
    assert.equal(await provider.getBalance(alice.address), parseEther('10000'));

    const sent = await alice.sendTransaction({ to: bob, value: parseEther('1.5'), gasLimit: 21000 });
    const mined = await provider.waitForTransaction(sent.hash, 1, 15_000);
    assert.equal(mined!.status, 1);
    assert.equal(mined!.to, bob);
    assert.equal(await provider.getBalance(bob), parseEther('10001.5'));
    const fetched = await provider.getTransaction(sent.hash);
    assert.equal(fetched!.blockNumber, mined!.blockNumber);
    assert.equal(fetched!.from, alice.address);
    assert.equal(fetched!.value, parseEther('1.5'));

    const factory = new ContractFactory(artifacts.TestToken.abi, artifacts.TestToken.bytecode, alice);
    const deployed = await factory.deploy('Test', 'TST', 1000n, { gasLimit: 2_000_000 });
    await deployed.waitForDeployment();
    tokenAddress = await deployed.getAddress();
    assert.equal(await provider.getCode(tokenAddress), artifacts.TestToken.deployedBytecode);

    const tokenContract = new Contract(tokenAddress, artifacts.TestToken.abi, alice);
    const tx = await tokenContract.getFunction('transfer')(bob, 10n, { gasLimit: 100_000 });
    const receipt = await tx.wait();
    assert.equal(receipt.status, 1);
    transferBlock = BigInt(receipt.blockNumber);
    const [event] = receipt.logs as EventLog[];
    assert.equal(event.eventName, 'Transfer');
    assert.deepEqual([...event.args], [alice.address, bob, 10n]);
    const events = await tokenContract.queryFilter(
      tokenContract.filters.Transfer(alice.address),
      0,
      'latest',
    );
    // the mint comes from the zero address, so only the transfer matches a filter on the sender
    assert.deepEqual(
      events.map((e) => (e as EventLog).args[2]),
      [10n],
    );
    // provider.send, not getTransactionCount: ethers caches identical calls for 250 ms, and the
    // same query populated the transfer's nonce (2) moments ago.
    assert.equal(await provider.send('eth_getTransactionCount', [alice.address, 'pending']), '0x3');
    const block = await provider.getBlock(receipt.blockNumber, true);
    assert.equal(block!.hash, receipt.blockHash);
    assert.deepEqual(block!.transactions, [tx.hash]);
    assert.equal(block!.prefetchedTransactions[0].hash, tx.hash);
  });

  await t.test('viem: block number, balance, blocks, receipts, logs', async () => {
    const chain = defineChain({
      id: Number(CHAIN_ID),
      name: 'chaind',
      nativeCurrency: { name: 'Chain', symbol: 'CHAIN', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    });
    const client = createPublicClient({ chain, transport: viemHttp(url) });
    assert.equal(await client.getChainId(), Number(CHAIN_ID));
    const number = await client.getBlockNumber({ cacheTime: 0 });
    assert.ok(number >= transferBlock);
    assert.equal(await client.getBalance({ address: bob as Hex }), parseEther('10001.5'));

    const block = await client.getBlock({ blockNumber: transferBlock, includeTransactions: true });
    assert.equal(block.number, transferBlock);
    assert.equal(block.baseFeePerGas, 10n ** 9n);
    assert.equal(block.transactions.length, 1);
    const [tx] = block.transactions;
    assert.equal(tx.to, tokenAddress.toLowerCase());
    const receipt = await client.getTransactionReceipt({ hash: tx.hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.blockHash, block.hash);
    assert.equal(receipt.effectiveGasPrice, tx.gasPrice);
    const genesis = await client.getBlock({ blockNumber: 0n });
    assert.equal(genesis.timestamp, BigInt(Date.parse('2026-01-01T00:00:00Z') / 1000));

    const logs = await client.getLogs({
      address: tokenAddress as Hex,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      fromBlock: 0n,
      toBlock: 'latest',
    });
    assert.deepEqual(
      logs.map((l) => [l.args.from, l.args.to, l.args.value]),
      [
        ['0x0000000000000000000000000000000000000000', alice.address, 1000n],
        [alice.address, bob, 10n],
      ],
    );
    assert.equal(logs[1].transactionHash, tx.hash);
    const fees = await client.estimateFeesPerGas();
    assert.ok(fees.maxFeePerGas >= 10n ** 9n);
  });
});
