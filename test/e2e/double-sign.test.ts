/**
 * A double sign on a real network: `chaind testnet --validators 4 --rpc-nodes 1`, where the full
 * node is given validator3's consensus key, so two nodes sign as one validator. When the two sign
 * different blocks of a height, CometBFT's evidence of the duplicate votes reaches FinalizeBlock as
 * misbehavior, and slashing slashes the validator, jails it for good and tombstones it. The other
 * three hold three quarters of the power: the chain goes on, with one app hash on every node.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { ed25519Address, ed25519FromJson } from '../../src/crypto/node-keys.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';

const HONEST = ['validator0', 'validator1', 'validator2'];
const net: TestNetwork | undefined = existsSync(installedBinaryPath())
  ? await TestNetwork.create({ after }, { validators: 4, rpcNodes: 1 })
  : undefined;

let consAddressHex = '';
if (net) {
  const keyPath = join(net.node('validator3').home, 'config', 'priv_validator_key.json');
  copyFileSync(keyPath, join(net.node('rpc0').home, 'config', 'priv_validator_key.json'));
  const key = ed25519FromJson(JSON.parse(readFileSync(keyPath, 'utf8')), keyPath);
  consAddressHex = Buffer.from(ed25519Address(key.publicKey)).toString('hex').toUpperCase();
  for (const n of net.manifest.nodes) net.start(n.name);
}

async function rest(path: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${net!.node('validator0').ports.rest}${path}`, {
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

test('two nodes signing with one key: the validator is slashed, jailed for good and tombstoned', async (t) => {
  if (!cometbftOrSkip(t)) return;
  await net!.waitHeight('validator0', 2, 120_000);
  const valoper = (await rest('/cosmos/staking/v1beta1/validators')).validators.find(
    (v: any) => v.description.moniker === 'validator3',
  ).operator_address;
  const deadline = Date.now() + 240_000;
  let info: any;
  for (;;) {
    const infos = await rest('/cosmos/slashing/v1beta1/signing_infos').catch(() => undefined);
    info = infos?.info?.find((i: any) => i.tombstoned === true);
    if (info) break;
    if (Date.now() > deadline) throw new Error(`no validator tombstoned: ${JSON.stringify(infos)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.ok(info.jailed_until.startsWith('9999-12-31'), info.jailed_until);
  const v = (await rest(`/cosmos/staking/v1beta1/validators/${valoper}`)).validator;
  assert.equal(v.jailed, true);
  assert.equal(v.tokens, '9500000', 'slashed by slash_fraction_double_sign (5%) of its 10,000,000');
  // CometBFT drops it; the chain goes on without it
  const validators = async () =>
    (await net!.consensus('validator0', '/validators')).body.result.validators.map((x: any) => x.address);
  for (;;) {
    if (!(await validators()).includes(consAddressHex)) break;
    if (Date.now() > deadline) throw new Error('validator3 still in the set');
    await new Promise((r) => setTimeout(r, 250));
  }
  const top = (await net!.height('validator0')) + 3;
  await Promise.all(HONEST.map((n) => net!.waitHeight(n, top)));
  for (let h = 1; h <= top; h++) {
    const ref = await net!.blockId('validator0', h);
    for (const n of HONEST.slice(1)) assert.deepEqual(await net!.blockId(n, h), ref, `${n} at height ${h}`);
  }
});
