/**
 * `chaind keys show` and `chaind tx …` spawned against a spawned `chaind dev`: the addresses of a
 * mnemonic file, an unfunded account named as such, and a tx the node refuses, which proves the
 * encode → sign → broadcast path end to end (the node decodes and verifies the signature before it
 * judges the message) and that its refusal reaches the operator as exit 1 with the node's log.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEV_MNEMONIC } from '../../src/cli/dev.ts';
import { generateEd25519, privValidatorKeyJson } from '../../src/crypto/node-keys.ts';
import { tempHome } from '../helpers/chaind.ts';
import { runChaindAsync } from '../helpers/chaind-async.ts';
import { startDev } from '../helpers/dev-banner.ts';

test('keys show, an unfunded signer, and a refused tx against a dev node', async (t) => {
  const dir = tempHome(t, 'chaind-cli-tx-');
  const mnemonicFile = join(dir, 'mnemonic');
  writeFileSync(mnemonicFile, DEV_MNEMONIC + '\n');
  const { banner } = await startDev(t);

  const shown = await runChaindAsync(['keys', 'show', '--from-mnemonic-file', mnemonicFile]);
  assert.equal(shown.code, 0, shown.stderr);
  const keys = JSON.parse(shown.stdout);
  assert.equal(keys.address, banner.accounts[0].cosmos);
  assert.equal(keys.evm_address, banner.accounts[0].evm);
  assert.match(keys.valoper, /^chainvaloper1/);
  const second = await runChaindAsync([
    'keys',
    'show',
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    "m/44'/60'/0'/0/1",
  ]);
  assert.equal(JSON.parse(second.stdout).address, banner.accounts[1].cosmos);

  const unfunded = await runChaindAsync([
    'tx',
    'slashing',
    'unjail',
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    "m/44'/60'/0'/0/99",
    '--node',
    banner.consensusRpc,
  ]);
  assert.equal(unfunded.code, 1);
  assert.match(unfunded.stderr, /^error: account chain1\w+ does not exist on chaind-dev .*fund it/m);

  // create-validator from a home holding only a fresh consensus key, signed by dev account 3
  const home = join(dir, 'validator');
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    join(home, 'config', 'priv_validator_key.json'),
    JSON.stringify(privValidatorKeyJson(generateEd25519())),
  );
  const refused = await runChaindAsync([
    'tx',
    'staking',
    'create-validator',
    '--home',
    home,
    '--node',
    banner.consensusRpc,
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    "m/44'/60'/0'/0/3",
    '--amount',
    '1000000uchain',
    '--moniker',
    'cli-test',
    '--commission-rate',
    '1.5',
  ]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: --commission-rate: a rate is at most 1/m);

  // unjail by an account that operates no validator: refused by the node (a chain without the
  // slashing module does not know the message; one with it knows no such validator)
  const notValidator = await runChaindAsync([
    'tx',
    'slashing',
    'unjail',
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    "m/44'/60'/0'/0/4",
    '--node',
    banner.consensusRpc,
    '--gas',
    '200000',
  ]);
  assert.equal(notValidator.code, 1, notValidator.stdout);
  assert.match(
    notValidator.stderr,
    /^error: (the node refused tx [0-9A-F]{64} \(CheckTx\)|tx [0-9A-F]{64} failed in block \d+): code [1-9]\d* \(\w+\): .*(unrecognized message type \/cosmos\.slashing\.v1beta1\.MsgUnjail|validator)/m,
  );
});
