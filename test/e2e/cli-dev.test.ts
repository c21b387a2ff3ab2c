import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';

test('dev prints the ten prefunded accounts, writes their balances to genesis, and stops on SIGTERM', async (t) => {
  const home = tempHome(t);
  const node = new ChaindProcess(['dev', '--home', home]);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('node started'));
  const accounts = node.lines.filter((l) => /^\s+\(\d\) 0x/.test(l));
  assert.equal(accounts.length, 10);
  assert.match(
    accounts[0],
    /^\s+\(0\) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\s+chain1\w+\s+key 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80$/,
  );
  assert.ok(
    node.lines.some((l) => l.includes('test test test test test test test test test test test junk')),
  );
  // where tools connect, once the listeners are bound
  await node.waitForLine((l) => l.startsWith('EVM chain id 713714 (0xae3f2); Cosmos chain id chaind-dev'));
  const evmUrl = await node.waitForLine((l) => l.trimStart().startsWith('EVM JSON-RPC'));
  assert.match(evmUrl, /^ {2}EVM JSON-RPC +http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(node.lines.some((l) => /^ {2}consensus RPC +http:\/\/127\.0\.0\.1:\d+$/.test(l)));

  const g = JSON.parse(readFileSync(join(home, 'config/genesis.json'), 'utf8'));
  assert.equal(g.app_state.bank.balances.length, 10);
  for (const b of g.app_state.bank.balances)
    assert.deepEqual(b.coins, [{ denom: 'uchain', amount: '10000000000' }]);
  const cosmos0 = accounts[0].trim().split(/\s+/)[2];
  assert.equal(g.app_state.bank.balances[0].address, cosmos0);
  assert.equal(g.app_state.staking.validators[0].operator_address.startsWith('chainvaloper1'), true);
  assert.equal(
    g.app_state.evm.address_associations[0].evm_address,
    'f39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  );
  assert.equal(g.app_state.evm.address_associations[0].cosmos_address, cosmos0);
  assert.equal((await node.stop('SIGTERM')).code, 0);
});

test('dev without --home uses a temporary home and removes it on exit', async (t) => {
  const node = new ChaindProcess(['dev', '--state-commitment', 'iavl']);
  t.after(() => node.stop('SIGKILL'));
  const header = await node.waitForLine((l) => l.startsWith('chaind dev chain'));
  const home = /home (\S+) \(removed on exit\)/.exec(header)![1];
  await node.waitForLine((l) => l.includes('node started'));
  const g = JSON.parse(readFileSync(join(home, 'config/genesis.json'), 'utf8'));
  assert.equal(g.app_state.evm.params.state_commitment, 'iavl');
  assert.equal((await node.stop('SIGINT')).code, 0);
  assert.equal(existsSync(home), false);
});
