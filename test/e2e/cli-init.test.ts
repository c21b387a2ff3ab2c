import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { runChaind, tempHome } from '../helpers/chaind.ts';

const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

test('init writes every file in its documented shape and prints moniker, chain_id, node_id', (t) => {
  const home = tempHome(t);
  const r = runChaind(['init', 'alpha', '--chain-id', 'alpha-1', '--home', home]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ['moniker', 'chain_id', 'node_id']);
  assert.equal(out.moniker, 'alpha');
  assert.equal(out.chain_id, 'alpha-1');

  const nodeKey = readJson(join(home, 'config/node_key.json'));
  assert.match(nodeKey.id, /^[0-9a-f]{40}$/);
  assert.equal(nodeKey.priv_key.type, 'tendermint/PrivKeyEd25519');
  const nodeRaw = Buffer.from(nodeKey.priv_key.value, 'base64');
  assert.equal(nodeRaw.length, 64);
  const expectedId = createHash('sha256')
    .update(nodeRaw.subarray(32))
    .digest()
    .subarray(0, 20)
    .toString('hex');
  assert.equal(nodeKey.id, expectedId);
  assert.equal(out.node_id, expectedId);
  assert.equal(statSync(join(home, 'config/node_key.json')).mode & 0o777, 0o600);

  const pv = readJson(join(home, 'config/priv_validator_key.json'));
  assert.match(pv.address, /^[0-9A-F]{40}$/);
  assert.equal(pv.pub_key.type, 'tendermint/PubKeyEd25519');
  const pvPub = Buffer.from(pv.pub_key.value, 'base64');
  assert.equal(pvPub.length, 32);
  assert.deepEqual(Buffer.from(pv.priv_key.value, 'base64').subarray(32), pvPub);
  assert.equal(
    pv.address,
    createHash('sha256').update(pvPub).digest().subarray(0, 20).toString('hex').toUpperCase(),
  );

  assert.deepEqual(readJson(join(home, 'data/priv_validator_state.json')), {
    height: '0',
    round: 0,
    step: 0,
  });

  const g = readJson(join(home, 'config/genesis.json'));
  assert.equal(g.chain_id, 'alpha-1');
  assert.equal(g.initial_height, '1');
  assert.ok(!Number.isNaN(Date.parse(g.genesis_time)));
  assert.match(g.consensus_params.block.max_bytes, /^\d+$/);
  assert.match(g.consensus_params.block.max_gas, /^\d+$/);
  assert.deepEqual(g.validators, [{ address: pv.address, pub_key: pv.pub_key, power: '10', name: 'alpha' }]);
  assert.equal(g.app_state.bank.denom_metadata[0].base, 'uchain');
  const [v] = g.app_state.staking.validators;
  assert.equal(v.description.moniker, 'alpha');
  assert.match(v.operator_address, /^chainvaloper1[0-9a-z]{38}$/);
  assert.equal(v.consensus_pubkey.key, pv.pub_key.value);
  assert.equal(g.app_state.evm.params.chain_id, '713714');
  assert.equal(g.app_state.evm.params.state_commitment, 'flatkv');
  assert.equal(g.app_state.evm.params.base_fee.min_base_fee, '1000000000');
  assert.deepEqual(g.app_state.evm.address_associations, []);
  assert.ok(g.app_state.auth);

  const config = parseToml(readFileSync(join(home, 'config/config.toml'), 'utf8')) as any;
  assert.equal(config.moniker, 'alpha');
  assert.equal(config.log_level, 'info');
  assert.equal(config.log_format, 'plain');
  assert.equal(config.rpc.laddr, 'tcp://127.0.0.1:26657');
  assert.equal(config.p2p['max-packet-msg-payload-size'], 102400);
  assert.equal(config.mempool['keep-invalid-txs-in-cache'], false);
  assert.equal(config.mempool['ttl-duration'], '5s');
  assert.equal(config.mempool['ttl-num-blocks'], 10);
  assert.equal(config.consensus['timeout-commit'], '400ms');
  assert.equal(config.instrumentation.namespace, 'tendermint');

  const appText = readFileSync(join(home, 'config/app.toml'), 'utf8');
  const app = parseToml(appText) as any;
  assert.equal(app['state-commit']['sc-enable'], true);
  assert.equal(app['state-store']['ss-backend'], 'pebbledb');
  assert.equal(app['state-store']['evm-ss-split'], false);
  assert.equal(app['state-store']['ss-keep-recent'], 100000);
  assert.deepEqual(app.evm.enabled_legacy_chain_apis, [
    'chain_getChainAddress',
    'chain_getEVMAddress',
    'chain_getCosmosTx',
  ]);
  assert.equal(app.evm.http_port, 8545);
  // one comment line per key
  const keyLines = appText.split('\n').filter((l) => /^[a-z_-]+ = /.test(l));
  for (const line of keyLines) {
    const lines = appText.split('\n');
    assert.match(lines[lines.indexOf(line) - 1], /^# \S/, `no comment above ${line}`);
  }
});

test('init --evm-chain-id and --state-commitment reach genesis', (t) => {
  const home = tempHome(t);
  const r = runChaind([
    'init',
    'b',
    '--chain-id',
    'b-1',
    '--home',
    home,
    '--evm-chain-id',
    '4242',
    '--state-commitment',
    'iavl',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const g = readJson(join(home, 'config/genesis.json'));
  assert.equal(g.app_state.evm.params.chain_id, '4242');
  assert.equal(g.app_state.evm.params.state_commitment, 'iavl');
});

test('init refuses to clobber without --overwrite, and --overwrite keeps both keys', (t) => {
  const home = tempHome(t);
  assert.equal(runChaind(['init', 'a', '--chain-id', 'a-1', '--home', home]).code, 0);
  const nodeKey = readFileSync(join(home, 'config/node_key.json'), 'utf8');
  const pvKey = readFileSync(join(home, 'config/priv_validator_key.json'), 'utf8');

  const again = runChaind(['init', 'a', '--chain-id', 'a-2', '--home', home]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /^error: .*config\.toml already exists; pass --overwrite/);
  assert.equal(again.stderr.trim().split('\n').length, 1);
  assert.equal(readJson(join(home, 'config/genesis.json')).chain_id, 'a-1');

  const over = runChaind(['init', 'a2', '--chain-id', 'a-2', '--home', home, '--overwrite']);
  assert.equal(over.code, 0, over.stderr);
  assert.equal(readJson(join(home, 'config/genesis.json')).chain_id, 'a-2');
  assert.equal(readFileSync(join(home, 'config/node_key.json'), 'utf8'), nodeKey);
  assert.equal(readFileSync(join(home, 'config/priv_validator_key.json'), 'utf8'), pvKey);
});

test('init on a home whose config.toml and genesis.json were removed keeps its app.toml as it is (the migration re-init)', (t) => {
  const home = tempHome(t);
  assert.equal(runChaind(['init', 'a', '--chain-id', 'a-1', '--home', home]).code, 0);
  const app = join(home, 'config/app.toml');
  const edited = readFileSync(app, 'utf8').replace(/^evm-ss-split = false$/m, 'evm-ss-split = true');
  assert.notEqual(edited, readFileSync(app, 'utf8'));
  writeFileSync(app, edited);
  // the spec's step 5: data, priv_validator_key.json, genesis.json and config.toml go; app.toml stays
  for (const f of ['config/config.toml', 'config/genesis.json', 'config/priv_validator_key.json'])
    rmSync(join(home, f));
  rmSync(join(home, 'data'), { recursive: true });
  const again = runChaind(['init', 'b', '--chain-id', 'a-1', '--home', home]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(app, 'utf8'), edited);
  assert.equal(readJson(join(home, 'config/genesis.json')).chain_id, 'a-1');
  assert.ok(existsSync(join(home, 'config/config.toml')));
  assert.ok(existsSync(join(home, 'data/priv_validator_state.json')));
});

test('init rejects a malformed chain id with one line', (t) => {
  const home = tempHome(t);
  const r = runChaind(['init', 'a', '--chain-id', 'bad id!', '--home', home]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: --chain-id "bad id!": use 1-50 letters/);
});

test('show-node-id prints the ID of node_key.json', (t) => {
  const home = tempHome(t);
  const init = JSON.parse(runChaind(['init', 'a', '--chain-id', 'a-1', '--home', home]).stdout);
  const r = runChaind(['show-node-id', '--home', home]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), init.node_id);
  assert.equal(r.stdout.trim(), readJson(join(home, 'config/node_key.json')).id);
});

test('version prints the package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(runChaind(['version']).stdout.trim(), pkg.version);
  assert.equal(runChaind(['--version']).stdout.trim(), pkg.version);
});
