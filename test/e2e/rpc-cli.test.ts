/** The JSON-RPC server of a spawned `chaind dev`, as a developer reaches it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

test('chaind dev serves JSON-RPC on the logged address: identity, balances, a transfer; closes on SIGTERM', async (t) => {
  const home = tempHome(t);
  // The helper gives every spawned node CHAIND_EVM_HTTP_PORT=0: the server picks a free port and logs it.
  const node = new ChaindProcess([
    'dev',
    '--home',
    home,
    '--log_format',
    'json',
    '--consensus.timeout-commit',
    '50ms',
  ]);
  t.after(() => node.stop('SIGKILL'));
  const line = JSON.parse(await node.waitForLine((l) => l.includes('JSON-RPC server listening')));
  assert.equal(line.module, 'rpc');
  assert.equal(line.level, 'info');
  assert.match(line.address, /^http:\/\/127\.0\.0\.1:\d+$/);
  const url: string = line.address;

  const health = await fetch(url);
  assert.equal(health.status, 200);
  const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  assert.equal((await provider.getNetwork()).chainId, 713714n);
  // the dev chain's version starts as Hardhat's network helpers need (docs/operators/dev-methods.md)
  assert.match(
    await provider.send('web3_clientVersion', []),
    /^anvil-compatible chaind\/v0\.1\.0\/[a-z0-9]+-[a-z0-9]+\/node24\./,
  );
  assert.equal(await provider.send('net_version', []), '713714');

  const dev = new Wallet(DEV_KEY, provider);
  assert.equal(dev.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  assert.equal(await provider.getBalance(dev.address), parseEther('10000'));
  const to = Wallet.createRandom().address;
  const sent = await dev.sendTransaction({ to, value: 123n, gasLimit: 21000 });
  const receipt = await sent.wait(1, 15_000);
  assert.equal(receipt!.status, 1);
  assert.equal(await provider.getBalance(to), 123n);

  provider.destroy();
  assert.equal((await node.stop('SIGTERM')).code, 0);
  await assert.rejects(fetch(url), 'the port is closed after shutdown');
});
