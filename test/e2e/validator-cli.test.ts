/**
 * An operator's path on a dev node, through the real CLI: `create-validator` from a home holding a
 * fresh consensus key, a delegation to it from another account and an unbonding, each in a block;
 * the validator then read back over REST as wallets and explorers read it.
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

const OPERATOR_PATH = "m/44'/60'/0'/0/1";
const DELEGATOR_PATH = "m/44'/60'/0'/0/2";

async function ok(args: string[]) {
  const r = await runChaindAsync(args);
  assert.equal(r.code, 0, `chaind ${args.join(' ')}:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

async function validator(rest: string, valoper: string) {
  const res = await fetch(`${rest}/cosmos/staking/v1beta1/validators/${valoper}`);
  const body = (await res.json()) as { validator: Record<string, any> };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.validator;
}

test('create-validator, delegate and unbond succeed on a dev node; REST reads the validator', async (t) => {
  const dir = tempHome(t, 'chaind-validator-cli-');
  const mnemonicFile = join(dir, 'mnemonic');
  writeFileSync(mnemonicFile, DEV_MNEMONIC + '\n');
  const home = join(dir, 'validator');
  mkdirSync(join(home, 'config'), { recursive: true });
  const consensusKey = privValidatorKeyJson(generateEd25519());
  writeFileSync(join(home, 'config', 'priv_validator_key.json'), JSON.stringify(consensusKey));
  const { banner } = await startDev(t);
  const node = ['--node', banner.consensusRpc, '--from-mnemonic-file', mnemonicFile];

  const created = await ok([
    'tx',
    'staking',
    'create-validator',
    '--home',
    home,
    ...node,
    '--hd-path',
    OPERATOR_PATH,
    '--amount',
    '1000000000uchain',
    '--moniker',
    'cli-validator',
    '--details',
    'made by the CLI test',
  ]);
  assert.match(created.txhash, /^[0-9A-F]{64}$/);
  assert.ok(created.height > 0);
  const operatorKeys = await ok([
    'keys',
    'show',
    '--from-mnemonic-file',
    mnemonicFile,
    '--hd-path',
    OPERATOR_PATH,
  ]);
  assert.equal(created.operator_address, operatorKeys.valoper);

  const v = await validator(banner.rest, created.operator_address);
  assert.equal(v.description.moniker, 'cli-validator');
  assert.equal(v.description.details, 'made by the CLI test');
  assert.equal(v.consensus_pubkey.key, consensusKey.pub_key.value);
  assert.equal(v.commission.commission_rates.rate, '0.100000000000000000');
  assert.equal(v.commission.commission_rates.max_rate, '0.200000000000000000');
  assert.equal(v.commission.commission_rates.max_change_rate, '0.010000000000000000');
  assert.equal(v.min_self_delegation, '1');
  assert.equal(v.tokens, '1000000000');

  const delegated = await ok([
    'tx',
    'staking',
    'delegate',
    created.operator_address,
    '25000000uchain',
    ...node,
    '--hd-path',
    DELEGATOR_PATH,
  ]);
  assert.ok(delegated.height >= created.height);
  assert.equal((await validator(banner.rest, created.operator_address)).tokens, '1025000000');

  await ok([
    'tx',
    'staking',
    'unbond',
    created.operator_address,
    '10000000uchain',
    ...node,
    '--hd-path',
    DELEGATOR_PATH,
  ]);
  assert.equal((await validator(banner.rest, created.operator_address)).tokens, '1015000000');
});
