import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringToPath } from '@cosmjs/crypto';
import { DirectSecp256k1HdWallet, makeCosmoshubPath } from '@cosmjs/proto-signing';
import { StargateClient } from '@cosmjs/stargate';
import { HDNodeWallet } from 'ethers';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';
import { startDev } from '../helpers/dev-banner.ts';
import { BONDED_POOL } from '../../src/app/staking/pools.ts';
import { toAccAddress } from '../../src/crypto/accounts.ts';

test('dev prints the ten prefunded accounts, writes their balances to genesis, and stops on SIGTERM', async (t) => {
  const home = tempHome(t);
  const { node } = await startDev(t, ['--home', home]);
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
  // the ten accounts, then the bonded pool holding the validator's self-delegation
  assert.equal(g.app_state.bank.balances.length, 11);
  for (const b of g.app_state.bank.balances.slice(0, 10))
    assert.deepEqual(b.coins, [{ denom: 'uchain', amount: '10000000000' }]);
  assert.deepEqual(g.app_state.bank.balances[10], {
    address: toAccAddress(BONDED_POOL),
    coins: [{ denom: 'uchain', amount: g.app_state.staking.validators[0].tokens }],
  });
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

test('dev without --home uses a temporary home and removes it on exit; --block-time makes blocks without txs', async (t) => {
  const { node, banner } = await startDev(t, [
    '--state-commitment',
    'iavl',
    '--block-time',
    '100ms',
    '--log_format',
    'json',
  ]);
  const header = node.lines.find((l) => l.startsWith('chaind dev chain'))!;
  const home = /home (\S+) \(removed on exit\)/.exec(header)![1];
  assert.ok(banner.lines.includes('Mining: a block every 100ms (--block-time), empty or not'));
  const blockNumber = async () => {
    const res = await fetch(banner.evmUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    return Number(((await res.json()) as { result: string }).result);
  };
  while ((await blockNumber()) < 3) await new Promise((r) => setTimeout(r, 50));
  // the empty blocks are not on the INFO log of the dev chain
  const records = node.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  assert.ok(records.some((r) => r.msg === 'node started'));
  assert.equal(records.filter((r) => r.msg === 'committed block').length, 0);
  const g = JSON.parse(readFileSync(join(home, 'config/genesis.json'), 'utf8'));
  assert.equal(g.app_state.evm.params.state_commitment, 'iavl');
  assert.equal((await node.stop('SIGINT')).code, 0);
  assert.equal(existsSync(home), false);
});

test('the banner says which HD path gives the funded addresses, for ethers and for CosmJS', async (t) => {
  const { banner } = await startDev(t);
  const mnemonic = /^Mnemonic: (.+)$/.exec(banner.lines.find((l) => l.startsWith('Mnemonic: '))!)![1];
  assert.ok(banner.lines.some((l) => l.includes("m/44'/60'/0'/0/n")));
  const cosmjsLine = banner.lines.find((l) => l.includes('DirectSecp256k1HdWallet.fromMnemonic'))!;
  const cosmjsPath = /stringToPath\("([^"]+)"\)/.exec(cosmjsLine)![1];
  assert.equal(cosmjsPath, "m/44'/60'/0'/0/0");
  assert.ok(banner.lines.some((l) => l.includes('makeCosmoshubPath')));

  // ethers on the Ethereum path: account 0's EVM address and key
  const evm = HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'/0/0");
  assert.equal(evm.address, banner.accounts[0].evm);
  assert.equal(evm.privateKey, banner.accounts[0].key);

  // CosmJS with the path the banner gives: the funded chain1 address; with its default path: not
  const withPath = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, {
    prefix: 'chain',
    hdPaths: [stringToPath(cosmjsPath), stringToPath("m/44'/60'/0'/0/3")],
  });
  const [first, fourth] = await withPath.getAccounts();
  assert.equal(first.address, banner.accounts[0].cosmos);
  assert.equal(fourth.address, banner.accounts[3].cosmos);
  const hub = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, {
    prefix: 'chain',
    hdPaths: [makeCosmoshubPath(0)],
  });
  const [hubAccount] = await hub.getAccounts();
  assert.notEqual(hubAccount.address, banner.accounts[0].cosmos);

  // CosmJS connects as soon as the banner is out (its /status needs a latest block: block 1 is there)
  const client = await StargateClient.connect(banner.consensusRpc);
  t.after(() => client.disconnect());
  assert.equal((await client.getBalance(first.address, 'uchain')).amount, '10000000000');
  assert.equal((await client.getBalance(hubAccount.address, 'uchain')).amount, '0');
});

test('dev refuses a --block-time that is not a duration, or one given with --consensus timing flags', () => {
  const bad = runChaind(['dev', '--block-time', 'soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--block-time "soon" is not a duration/);
  const both = runChaind(['dev', '--block-time', '1s', '--consensus.timeout-commit', '20ms']);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /--block-time and --consensus\.timeout-commit both set the block timing/);
});
