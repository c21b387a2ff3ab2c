/**
 * `chaind dev`'s mining modes and `pending` state through the real interface: the CLI spawned as a
 * user starts it, ethers as a script uses it.
 *
 * - On demand (the default): a deploy that a script does not wait for is mined before its
 *   eth_sendRawTransaction answers, so the next call finds the contract (what Hardhat tests written
 *   without waitForDeployment() need); blocks come only for waiting transactions.
 * - a block an hour after the first tx: the txs stay in the pool, and `pending` reads and simulations see them as the
 *   pending block (latest state + the pool's executable txs), while `latest` does not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import { artifacts } from '../helpers/dev-chain.ts';
import { startDev } from '../helpers/dev-banner.ts';

const counter = artifacts.Counter as { abi: unknown[]; bytecode: string; deployedBytecode: string };

test('on-demand mining: a deploy not waited for is callable at once; a block per waiting batch, no empty blocks', async (t) => {
  const { node, banner } = await startDev(t, ['--log_format', 'json']);
  assert.ok(banner.lines.some((l) => l.startsWith('Mining: on demand')));
  // ethers' own answer cache (250 ms by default) would hand the deploy's pending nonce to the next tx
  const provider = new JsonRpcProvider(banner.evmUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const wallet = new Wallet(banner.accounts[0].key, provider);
  // ethers caches getBlockNumber for a while: the node's own answer each time
  const blockNumber = async () => Number(await provider.send('eth_blockNumber', []));

  // block 1 comes at start (as CometBFT's initial block); no other block without txs
  assert.equal(await blockNumber(), 1, 'the banner is printed once block 1 is committed');
  assert.equal((await provider.send('eth_getBlockByNumber', ['0x1', false])).transactions.length, 0);
  // a fresh chain suggests geth's default tip, and a gas price of the base fee plus it
  const GWEI = 1_000_000_000n;
  const genesis = await provider.send('eth_getBlockByNumber', ['0x0', false]);
  assert.equal(BigInt(await provider.send('eth_maxPriorityFeePerGas', [])), GWEI);
  assert.equal(BigInt(await provider.send('eth_gasPrice', [])), BigInt(genesis.baseFeePerGas) + GWEI);
  // deploy, and call without waitForDeployment(): the call's gas estimate must see the contract
  const deployed = (await new ContractFactory(
    counter.abi as never,
    counter.bytecode,
    wallet,
  ).deploy()) as Contract;
  const tx = await deployed.increment();
  const receipt = await tx.wait();
  assert.equal(receipt!.status, 1);
  assert.ok(receipt!.gasUsed > 25_000n, `increment used ${receipt!.gasUsed} gas`);
  assert.equal(await deployed.count(), 1n);
  assert.equal(await blockNumber(), 3, 'one block for the deploy, one for the call');

  // several senders at once: every tx is mined, in as many blocks as batches, none of them empty
  const senders = banner.accounts.slice(1, 5).map((a) => new Wallet(a.key, provider));
  const sent = await Promise.all(senders.map((w) => w.sendTransaction({ to: wallet.address, value: 1n })));
  const receipts = await Promise.all(sent.map((s) => s.wait()));
  assert.ok(receipts.every((r) => r!.status === 1));
  const latest = await blockNumber();
  assert.ok(latest > 3 && latest <= 3 + senders.length, `blocks up to ${latest}`);
  for (let h = 2; h <= latest; h++) {
    const block = await provider.getBlock(h);
    assert.ok(block!.transactions.length > 0, `block ${h} is empty`);
  }

  // the dev log names each tx at INFO, with its sender, status and gas used
  const records = node.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const included = records.filter((r) => r.msg === 'transaction included');
  const deployLine = included.find((r) => r.tx === deployed.deploymentTransaction()!.hash);
  assert.ok(deployLine, 'the deploy has a log line');
  assert.equal(deployLine.level, 'info');
  assert.equal(deployLine.from, wallet.address);
  assert.equal(deployLine.contract, await deployed.getAddress());
  assert.equal(deployLine.status, 'success');
  assert.equal(BigInt(deployLine.gas_used), (await deployed.deploymentTransaction()!.wait())!.gasUsed);
  assert.equal(included.length, 2 + senders.length);
});

test('pending = latest + the pool: code, calls, estimates, storage, balances and access lists see the waiting txs', async (t) => {
  // no block for an hour after the initial one
  const { banner } = await startDev(t, [
    '--consensus.timeout-commit',
    '1h',
    '--consensus.create-empty-blocks',
    'false',
  ]);
  assert.ok(banner.lines.some((l) => l.startsWith('Mining: as the --consensus.* flags say')));
  const provider = new JsonRpcProvider(banner.evmUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const wallet = new Wallet(banner.accounts[0].key, provider);
  const rpc = (method: string, params: unknown[]) => provider.send(method, params);

  const factory = new ContractFactory(counter.abi as never, counter.bytecode, wallet);
  const deployed = (await factory.deploy()) as Contract;
  const address = await deployed.getAddress();
  const latestHeight = Number(await rpc('eth_blockNumber', []));
  assert.equal(latestHeight, 1);

  // the deploy waits in the pool
  assert.equal(await rpc('eth_getCode', [address, 'latest']), '0x');
  assert.equal(await rpc('eth_getCode', [address, 'pending']), counter.deployedBytecode);
  const countCall = { to: address, data: deployed.interface.encodeFunctionData('count') };
  assert.equal(await rpc('eth_call', [countCall, 'latest']), '0x');
  assert.equal(BigInt(await rpc('eth_call', [countCall, 'pending'])), 0n);

  const incrementCall = {
    from: wallet.address,
    to: address,
    data: deployed.interface.encodeFunctionData('increment'),
  };
  const atLatest = BigInt(await rpc('eth_estimateGas', [incrementCall, 'latest']));
  const atPending = BigInt(await rpc('eth_estimateGas', [incrementCall, 'pending']));
  assert.ok(atLatest < 22_000n, `latest: a call to an empty account (${atLatest})`);
  assert.ok(atPending > 25_000n, `pending: the counter's increment (${atPending})`);

  // a tx sent right after the deploy, with the pending estimate, and what it changes
  const incremented = await wallet.sendTransaction({ ...incrementCall, gasLimit: atPending });
  assert.equal(await rpc('eth_getTransactionCount', [wallet.address, 'pending']), '0x2');
  assert.equal(BigInt(await rpc('eth_call', [countCall, 'pending'])), 1n);
  assert.equal(BigInt(await rpc('eth_getStorageAt', [address, '0x0', 'pending'])), 1n);
  assert.equal(BigInt(await rpc('eth_getStorageAt', [address, '0x0', 'latest'])), 0n);
  const balanceLatest = BigInt(await rpc('eth_getBalance', [wallet.address, 'latest']));
  const balancePending = BigInt(await rpc('eth_getBalance', [wallet.address, 'pending']));
  assert.ok(balancePending < balanceLatest, 'the pending txs pay their fees');
  const list = await rpc('eth_createAccessList', [incrementCall, 'pending']);
  assert.deepEqual(
    list.accessList.map((e: { address: string }) => e.address.toLowerCase()),
    [address.toLowerCase()],
  );
  assert.equal(list.accessList[0].storageKeys.length, 1);
  assert.equal(Number(await rpc('eth_blockNumber', [])), latestHeight, 'nothing was mined meanwhile');
  assert.ok(incremented.hash);
});
