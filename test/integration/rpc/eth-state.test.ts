/**
 * Account state and chain information over HTTP: balances, nonces, code and storage at any retained
 * height through every block reference form; errors above latest, for unknown hashes and for pruned
 * heights; identity methods; fee suggestions.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { AbiCoder, getCreateAddress, Interface, keccak256, parseEther } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, sendAndWait, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const START = parseEther('10000');

test('state at heights, block reference forms, chain info, fee suggestions', async (t) => {
  const { node, url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const [a, b] = [wallets[0].address, wallets[1].address];
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };

  const transfer = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 0,
    to: b,
    value: parseEther('1'),
    gasLimit: 21000,
    ...fee,
  });
  const deploy = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 1,
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
    ...fee,
  });
  const tokenAddress = getCreateAddress({ from: a, nonce: 1 });
  const move = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 2,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [b, 10n]),
    gasLimit: 100_000,
    ...fee,
  });
  const [h1, h2, h3] = [transfer, deploy, move].map((x) => Number(x.receipt.blockNumber));
  const spent = (r: { gasUsed: string; effectiveGasPrice: string }) =>
    BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);

  await t.test(
    'eth_getBalance at genesis, before and after a transfer, by every reference form',
    async () => {
      const genesisHash = (await call('eth_getBlockByNumber', '0x0', false)).hash;
      assert.notEqual(genesisHash, '0x' + '00'.repeat(32));
      const h1Hash = transfer.receipt.blockHash;
      for (const ref of ['0x0', 'earliest', genesisHash, { blockHash: genesisHash }, { blockNumber: '0x0' }])
        assert.equal(await call('eth_getBalance', a, ref), hex(START), JSON.stringify(ref));
      assert.equal(await call('eth_getBalance', a, hex(h1 - 1)), hex(START));
      const afterTransfer = START - parseEther('1') - spent(transfer.receipt);
      for (const ref of [
        hex(h1),
        h1Hash,
        { blockHash: h1Hash, requireCanonical: true },
        { blockNumber: hex(h1) },
      ])
        assert.equal(await call('eth_getBalance', a, ref), hex(afterTransfer), JSON.stringify(ref));
      assert.equal(await call('eth_getBalance', b, hex(h1)), hex(START + parseEther('1')));
      const now = afterTransfer - spent(deploy.receipt) - spent(move.receipt);
      for (const tag of ['latest', 'safe', 'finalized', 'pending'])
        assert.equal(await call('eth_getBalance', a, tag), hex(now), tag);
      // an address that never held anything
      assert.equal(await call('eth_getBalance', '0x' + '42'.repeat(20), 'latest'), '0x0');
      // the fee collector received every fee
      const collector = await call('eth_coinbase');
      assert.equal(
        await call('eth_getBalance', collector, 'latest'),
        hex(spent(transfer.receipt) + spent(deploy.receipt) + spent(move.receipt)),
      );
    },
  );

  await t.test('eth_getTransactionCount, eth_getCode and eth_getStorageAt follow the heights', async () => {
    assert.equal(await call('eth_getTransactionCount', a, '0x0'), '0x0');
    assert.equal(await call('eth_getTransactionCount', a, hex(h1)), '0x1');
    assert.equal(await call('eth_getTransactionCount', a, 'latest'), '0x3');
    assert.equal(await call('eth_getTransactionCount', a, 'pending'), '0x3');
    assert.equal(await call('eth_getCode', tokenAddress, hex(h2 - 1)), '0x');
    assert.equal(await call('eth_getCode', tokenAddress, hex(h2)), artifacts.TestToken.deployedBytecode);
    assert.equal(await call('eth_getCode', a, 'latest'), '0x');
    // balanceOf[b] is slot keccak(pad(b) ‖ pad(3)); totalSupply is slot 2
    const slot = keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [b, 3]));
    const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
    assert.equal(await call('eth_getStorageAt', tokenAddress, slot, hex(h3 - 1)), word(0n));
    assert.equal(await call('eth_getStorageAt', tokenAddress, slot, hex(h3)), word(10n));
    assert.equal(await call('eth_getStorageAt', tokenAddress, '0x2', 'latest'), word(1000n));
    assert.equal(
      await call('eth_getStorageAt', tokenAddress, '0x' + '00'.repeat(31) + '02', 'latest'),
      word(1000n),
    );
  });

  await t.test('state reads above latest or at an unknown hash are errors', async () => {
    const latest = node.modules.chain.latestHeight;
    assert.deepEqual(await error(url, 'eth_getBalance', [a, hex(latest + 1)]), {
      code: -32000,
      message: 'header not found',
    });
    const unknown = '0x' + 'cd'.repeat(32);
    assert.deepEqual(await error(url, 'eth_getCode', [a, unknown]), {
      code: -32000,
      message: `header for hash ${unknown} not found`,
    });
    assert.deepEqual(await error(url, 'eth_getTransactionCount', [a, { blockHash: unknown }]), {
      code: -32000,
      message: `header for hash ${unknown} not found`,
    });
    assert.deepEqual(await error(url, 'eth_getStorageAt', [a, '0x0', hex(latest + 100)]), {
      code: -32000,
      message: 'header not found',
    });
  });

  await t.test('identity: client version, chain id, net_version, syncing, accounts, coinbase', async () => {
    assert.equal(
      await call('web3_clientVersion'),
      `chaind/v0.1.0/${process.platform}-${process.arch}/node${process.versions.node}`,
    );
    assert.equal(await call('eth_chainId'), hex(CHAIN_ID));
    assert.equal(await call('net_version'), '713714');
    assert.equal(await call('eth_syncing'), false);
    assert.deepEqual(await call('eth_accounts'), []);
    // the fee collector: the first 20 bytes of SHA-256("fee_collector"), as the Cosmos SDK derives it
    const collector =
      '0x' + createHash('sha256').update('fee_collector').digest().subarray(0, 20).toString('hex');
    assert.equal(await call('eth_coinbase'), collector);
    assert.equal(await call('eth_blockNumber'), hex(node.modules.chain.latestHeight));
    assert.equal(await call('web3_sha3', '0x68656c6c6f'), keccak256('0x68656c6c6f'));
  });

  await t.test(
    'fee suggestions: the tip from the recent blocks, the gas price from the latest block',
    async () => {
      // The latest block holds the token transfer: effective price = base fee (1 gwei, the floor) + 1 gwei tip.
      assert.equal(move.receipt.effectiveGasPrice, hex(2n * GWEI));
      assert.equal(await call('eth_gasPrice'), hex(2n * GWEI));
      assert.equal(await call('eth_maxPriorityFeePerGas'), hex(GWEI));
    },
  );
});

test("fee suggestions of a chain without txs: geth's default tip (1 gwei) over the next base fee", async (t) => {
  const { url } = await rpcNode(t);
  assert.equal(await result(url, 'eth_maxPriorityFeePerGas'), hex(GWEI));
  assert.equal(await result(url, 'eth_gasPrice'), hex(2n * GWEI));
});

test('a pruned height is -32000 naming the earliest available height', async (t) => {
  const { node, url } = await rpcNode(t, {
    'state-store.ss-keep-recent': '2',
    'state-store.ss-prune-interval': '1',
  });
  const a = wallets[0].address;
  const deadline = Date.now() + 10_000;
  while (node.modules.ss.earliestVersion() <= 1) {
    assert.ok(Date.now() < deadline, 'the state store prunes within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // the pruner keeps running (every second): the height named lies between the earliest before the
  // request and the earliest after it
  const before = node.modules.ss.earliestVersion() - 1;
  const e = await error(url, 'eth_getBalance', [a, '0x0']);
  const after = node.modules.ss.earliestVersion() - 1;
  const named =
    /^state at height 0 is not available \(pruned\): the earliest available height is (\d+)$/.exec(e.message);
  assert.equal(e.code, -32000);
  assert.ok(named, e.message);
  assert.ok(before <= Number(named[1]) && Number(named[1]) <= after, `${named[1]} in [${before}, ${after}]`);
  // `earliest` names the earliest retained state
  assert.equal(await result(url, 'eth_getBalance', [a, 'earliest']), hex(START));
});

test('`earliest` is one height everywhere: on a pruned node, the earliest height with state', async (t) => {
  const { node, url } = await rpcNode(t, {
    'state-store.ss-keep-recent': '2',
    'state-store.ss-prune-interval': '1',
  });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const a = wallets[0].address;
  const producer = node.modules.engine.producer!;
  await until(() => node.modules.ss.earliestVersion() > 3);
  // with no new block the pruner settles at latest - keep-recent: `earliest` stops moving
  await producer.stop();
  // keep-recent 2: the versions of the latest three heights stay readable (prune target latest - 2)
  await until(() => node.modules.ss.earliestVersion() === node.modules.ss.latestVersion() - 2);
  const earliest = Number(
    /the earliest available height is (\d+)$/.exec(
      (await error(url, 'eth_getBalance', [a, '0x0'])).message,
    )![1],
  );
  assert.ok(earliest > 0);
  // blocks are all kept (only state is pruned): block 0 is still there, but `earliest` is not it
  const block = await call('eth_getBlockByNumber', 'earliest', false);
  assert.equal(block.number, hex(earliest));
  assert.deepEqual(block, await call('eth_getBlockByNumber', hex(earliest), false));
  assert.equal((await call('eth_getBlockByNumber', '0x0', false)).number, '0x0');
  assert.equal(await call('eth_getBalance', a, 'earliest'), await call('eth_getBalance', a, hex(earliest)));
  assert.equal(
    await call('eth_getBlockTransactionCountByNumber', 'earliest'),
    await call('eth_getBlockTransactionCountByNumber', hex(earliest)),
  );
  producer.start();
});
