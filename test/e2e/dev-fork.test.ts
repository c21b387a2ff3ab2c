/**
 * `chaind dev --fork-url` against real remotes: an RPC node of a chaind network (CometBFT), whose
 * ERC20 a fork reads and moves; and a second `chaind dev`, given a contract, a funded address and an
 * account whose key the test holds, then forked at a fixed block (and re-forked by a reset). The fork
 * reads the remote's balances, nonces, code and storage at that block; its own transactions change
 * only its own state (a slot set to zero and a balance spent entirely read zero, not the remote's
 * value); and a kept forked home replays its blocks to the same app hashes from the cached values
 * alone, with the remote gone.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Wallet } from 'ethers';
import { tempHome } from '../helpers/chaind.ts';
import { startDev } from '../helpers/dev-banner.ts';
import { cometbftOrSkip, deployTestToken, FAST_NETWORK_FLAGS, TestNetwork } from '../helpers/network.ts';
import { result, rpc } from '../helpers/json-rpc.ts';

/**
 * Runtime: no calldata returns slot 0; otherwise stores the first word of calldata in slot 0.
 * The constructor stores 0x2a in slot 0 and 7 in slot 1.
 */
const RUNTIME = '0x3615600c57600035600055005b60005460005260206000f3';
const INIT = '0x602a6000556007600155601860166000396018' + '6000f3' + RUNTIME.slice(2);
const RICH = '0x' + '11'.repeat(20);
/** Not a multiple of 10^12 wei: the fork must keep the wei remainder. */
const RICH_WEI = 1_234_567_890_123_456_789n;
const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');

async function mined(url: string, hash: string) {
  const receipt = await result(url, 'eth_getTransactionReceipt', [hash]);
  assert.equal(receipt?.status, '0x1', `tx ${hash}: ${JSON.stringify(receipt)}`);
  return receipt;
}

test('a fork reads the remote at the fork block, writes only its own state, and replays from its cache', async (t) => {
  const remote = await startDev(t);
  const r = remote.banner.evmUrl;
  const [dev0] = remote.banner.accounts.map((a) => a.evm.toLowerCase());

  // the remote: a contract, a funded address, an account of a key the test holds
  const deploy = await result(r, 'eth_sendTransaction', [{ from: dev0, data: INIT }]);
  const contract = (await mined(r, deploy)).contractAddress as string;
  await mined(
    r,
    await result(r, 'eth_sendTransaction', [{ from: dev0, to: RICH, value: '0x' + RICH_WEI.toString(16) }]),
  );
  const spender = Wallet.createRandom();
  const spenderWei = 10n ** 18n;
  await mined(
    r,
    await result(r, 'eth_sendTransaction', [
      { from: dev0, to: spender.address, value: '0x' + spenderWei.toString(16) },
    ]),
  );
  const forkBlock = Number(await result(r, 'eth_blockNumber'));
  const remoteNonce = await result(r, 'eth_getTransactionCount', [dev0, 'latest']);
  // after the fork block: not seen by the fork
  await mined(r, await result(r, 'eth_sendTransaction', [{ from: dev0, to: contract, data: word(0x55n) }]));
  assert.equal(await result(r, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0x55n));

  const home = tempHome(t);
  const forked = await startDev(t, [
    '--home',
    home,
    '--fork-url',
    r,
    '--fork-block-number',
    String(forkBlock),
  ]);
  const f = forked.banner.evmUrl;
  assert.ok(
    forked.banner.lines.some((l) => l.startsWith(`Forked from ${r} at block ${forkBlock} `)),
    forked.banner.lines.join('\n'),
  );
  // the remote's chain id (anvil's rule); the fork's own heights
  assert.equal(await result(f, 'eth_chainId'), await result(r, 'eth_chainId'));
  const startHeight = Number(await result(f, 'eth_blockNumber'));
  assert.ok(startHeight >= 1 && startHeight < forkBlock + 1, `fork height ${startHeight}`);

  // the remote's state at the fork block
  assert.equal(await result(f, 'eth_getCode', [contract, 'latest']), RUNTIME);
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0x2an));
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x1', 'latest']), word(7n));
  assert.equal(BigInt(await result(f, 'eth_getBalance', [RICH, 'latest'])), RICH_WEI);
  assert.equal(BigInt(await result(f, 'eth_getBalance', [spender.address, 'latest'])), spenderWei);
  assert.equal(await result(f, 'eth_getTransactionCount', [dev0, 'latest']), remoteNonce);
  assert.equal(await result(f, 'eth_call', [{ to: contract, data: '0x' }, 'latest']), word(0x2an));

  // a tx on the fork changes forked storage, with the remote's nonce of its sender
  const set = await result(f, 'eth_sendTransaction', [{ from: dev0, to: contract, data: word(0x63n) }]);
  const setTx = await result(f, 'eth_getTransactionByHash', [set]);
  assert.equal(setTx.nonce, remoteNonce);
  const setReceipt = await mined(f, set);
  assert.equal(await result(f, 'eth_call', [{ to: contract, data: '0x' }, 'latest']), word(0x63n));
  // history below the tx still reads the remote's value
  const before = '0x' + (Number(setReceipt.blockNumber) - 1).toString(16);
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x0', before]), word(0x2an));
  // a trace re-executes the block over that history
  const prestate = await result(f, 'debug_traceTransaction', [set, { tracer: 'prestateTracer' }]);
  assert.equal(prestate[contract.toLowerCase()]?.storage?.[word(0n)], word(0x2an), JSON.stringify(prestate));

  // deletes stay deletes: a slot set to zero, a balance spent entirely
  await mined(f, await result(f, 'eth_sendTransaction', [{ from: dev0, to: contract, data: word(0n) }]));
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0n));
  assert.equal(await result(f, 'eth_call', [{ to: contract, data: '0x' }, 'latest']), word(0n));
  const gasPrice = 10n ** 10n;
  const chainId = BigInt(await result(f, 'eth_chainId'));
  const spend = await spender.signTransaction({
    type: 0,
    chainId,
    nonce: 0,
    to: RICH,
    gasLimit: 21_000,
    gasPrice,
    value: spenderWei - 21_000n * gasPrice,
  });
  await mined(f, await result(f, 'eth_sendRawTransaction', [spend]));
  assert.equal(BigInt(await result(f, 'eth_getBalance', [spender.address, 'latest'])), 0n);
  assert.equal(
    BigInt(await result(f, 'eth_getBalance', [RICH, 'latest'])),
    RICH_WEI + spenderWei - 21_000n * gasPrice,
  );

  // the remote is unchanged by all of it
  assert.equal(await result(r, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0x55n));
  assert.equal(BigInt(await result(r, 'eth_getBalance', [spender.address, 'latest'])), spenderWei);
  assert.equal(BigInt(await result(r, 'eth_getBalance', [RICH, 'latest'])), RICH_WEI);

  // a restart that re-executes every block (State Commit removed), with the remote gone: the cached
  // values give the same app hashes (a mismatch would stop the start)
  const latest = await result(f, 'eth_getBlockByNumber', ['latest', false]);
  await forked.node.stopWithin(10_000);
  await remote.node.stopWithin(10_000);
  rmSync(join(home, 'data', 'state_commit'), { recursive: true, force: true });
  const again = await startDev(t, ['--home', home]);
  const g = again.banner.evmUrl;
  assert.ok(
    again.node.lines.some((l) => l.includes('replayed block')),
    'the blocks were re-executed',
  );
  const same = await result(g, 'eth_getBlockByNumber', [latest.number, false]);
  assert.equal(same.hash, latest.hash);
  assert.equal(await result(g, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0n));
  assert.equal(await result(g, 'eth_getStorageAt', [contract, '0x1', 'latest']), word(7n));
  assert.equal(BigInt(await result(g, 'eth_getBalance', [spender.address, 'latest'])), 0n);
  // a value never fetched needs the remote: the read fails, naming it, rather than reading zero
  const missing = await rpc(g, 'eth_getBalance', ['0x' + '22'.repeat(20), 'latest']);
  assert.ok(missing.error, JSON.stringify(missing));
  assert.match(missing.error.message, new RegExp(`remote ${r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
});

test('hardhat_reset / anvil_reset with forking parameters fork another block of the remote: local blocks and cached values are gone', async (t) => {
  const remote = await startDev(t);
  const r = remote.banner.evmUrl;
  const [dev0] = remote.banner.accounts.map((a) => a.evm.toLowerCase());
  const contract = (await mined(r, await result(r, 'eth_sendTransaction', [{ from: dev0, data: INIT }])))
    .contractAddress as string;
  const first = Number(await result(r, 'eth_blockNumber'));
  await mined(r, await result(r, 'eth_sendTransaction', [{ from: dev0, to: contract, data: word(0x55n) }]));
  const second = Number(await result(r, 'eth_blockNumber'));

  const forked = await startDev(t, ['--fork-url', r, '--fork-block-number', String(first)]);
  const f = forked.banner.evmUrl;
  assert.equal(await result(f, 'eth_call', [{ to: contract }, 'latest']), word(0x2an));
  const local = await result(f, 'eth_sendTransaction', [{ from: dev0, to: contract, data: word(0x77n) }]);
  await mined(f, local);
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0x77n));

  // the later block: its value, and nothing of the local blocks
  assert.equal(await result(f, 'hardhat_reset', [{ forking: { jsonRpcUrl: r, blockNumber: second } }]), true);
  assert.equal(await result(f, 'eth_getStorageAt', [contract, '0x0', 'latest']), word(0x55n));
  assert.equal(await result(f, 'eth_getTransactionReceipt', [local]), null);
  assert.equal(
    await result(f, 'eth_getTransactionCount', [dev0, 'latest']),
    await result(r, 'eth_getTransactionCount', [dev0, 'latest']),
  );
  // and back to the first block, under anvil's name (a hex block number, as viem sends it)
  assert.equal(
    await result(f, 'anvil_reset', [{ forking: { jsonRpcUrl: r, blockNumber: '0x' + first.toString(16) } }]),
    null,
  );
  assert.equal(await result(f, 'eth_call', [{ to: contract }, 'latest']), word(0x2an));

  // what cannot be forked changes nothing
  const unreachable = await rpc(f, 'hardhat_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]);
  assert.ok(unreachable.error, 'a remote that does not answer is an error');
  assert.match(unreachable.error.message, /127\.0\.0\.1:1/);
  assert.equal(await result(f, 'eth_call', [{ to: contract }, 'latest']), word(0x2an));
});

test('a dev chain forks a chaind network node: an ERC20 deployed on the network is read and moved on the fork only', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const net = await TestNetwork.create(t, { validators: 1, rpcNodes: 1 });
  const [validator, rpcNode] = net.names;
  net.startAll(FAST_NETWORK_FLAGS);
  await net.waitHeight(validator, 2);
  await net.waitHeight(rpcNode, 2);
  const remote = net.evmUrl(rpcNode);
  const supply = 10n ** 24n;
  const { provider, owner, address } = await deployTestToken(remote, 'Forked', 'FRK', supply);
  t.after(() => provider.destroy());
  const holder = owner.address.toLowerCase();
  const balanceOf = (who: string) => '0x70a08231' + who.slice(2).padStart(64, '0');

  const forked = await startDev(t, ['--fork-url', remote]);
  const f = forked.banner.evmUrl;
  assert.equal(await result(f, 'eth_chainId'), await result(remote, 'eth_chainId'));
  assert.equal(
    await result(f, 'eth_getCode', [address, 'latest']),
    await result(remote, 'eth_getCode', [address, 'latest']),
  );
  assert.equal(
    BigInt(await result(f, 'eth_call', [{ to: address, data: balanceOf(holder) }, 'latest'])),
    supply,
  );

  // transfer(to, 5) from the deployer, a dev account here too: the fork's balances move, the network's do not
  const to = '0x' + '77'.repeat(20);
  const transfer = '0xa9059cbb' + to.slice(2).padStart(64, '0') + 5n.toString(16).padStart(64, '0');
  await mined(f, await result(f, 'eth_sendTransaction', [{ from: holder, to: address, data: transfer }]));
  assert.equal(BigInt(await result(f, 'eth_call', [{ to: address, data: balanceOf(to) }, 'latest'])), 5n);
  assert.equal(
    BigInt(await result(f, 'eth_call', [{ to: address, data: balanceOf(holder) }, 'latest'])),
    supply - 5n,
  );
  assert.equal(
    BigInt(await result(remote, 'eth_call', [{ to: address, data: balanceOf(to) }, 'latest'])),
    0n,
  );
});
