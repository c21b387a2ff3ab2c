import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  accountsFromMnemonic,
  fromBech32,
  toAccAddress,
  toChecksumAddress,
} from '../../../src/crypto/accounts.ts';
import {
  ed25519FromJson,
  ed25519FromSeed,
  ed25519Sign,
  ed25519Verify,
  nodeIdOf,
  nodeKeyJson,
  privValidatorKeyJson,
} from '../../../src/crypto/node-keys.ts';

test('the dev mnemonic derives the well-known Hardhat/Foundry accounts', () => {
  const accounts = accountsFromMnemonic('test test test test test test test test test test test junk', 3);
  assert.deepEqual(
    accounts.map((a) => toChecksumAddress(a.evmAddress)),
    [
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    ],
  );
  assert.equal(
    Buffer.from(accounts[0].privateKey).toString('hex'),
    'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  );
  const bech = toAccAddress(accounts[0].cosmosAddress);
  assert.match(bech, /^chain1[02-9ac-hj-np-z]{38}$/);
  assert.deepEqual(fromBech32(bech, 'chain'), accounts[0].cosmosAddress);
  assert.throws(() => fromBech32(bech, 'cosmos'), /has prefix chain, expected cosmos/);
});

test('Ed25519 from a fixed seed (RFC 8032 test 1) gives the known public key and node id', () => {
  const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
  const key = ed25519FromSeed(seed);
  assert.equal(
    Buffer.from(key.publicKey).toString('hex'),
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  );
  assert.match(nodeIdOf(key.publicKey), /^[0-9a-f]{40}$/);
  const back = ed25519FromJson(nodeKeyJson(key), 'node_key.json');
  assert.deepEqual(back.publicKey, key.publicKey);
  assert.equal(privValidatorKeyJson(key).address, nodeIdOf(key.publicKey).toUpperCase());
});

test('a key file whose halves disagree is refused', () => {
  const key = ed25519FromSeed(new Uint8Array(32).fill(1));
  const json = nodeKeyJson(key);
  const raw = Buffer.from(json.priv_key.value, 'base64');
  raw[40] ^= 1;
  json.priv_key.value = raw.toString('base64');
  assert.throws(
    () => ed25519FromJson(json, 'k.json'),
    /k\.json: priv_key\.value's public half does not match its seed/,
  );
  assert.throws(
    () => ed25519FromJson({ priv_key: { type: 'x', value: '' } }, 'k.json'),
    /k\.json: priv_key must be/,
  );
});

test('ed25519 signatures verify, and a key whose seed changes signs with the new seed', () => {
  const message = new TextEncoder().encode('block sign bytes');
  const a = ed25519FromSeed(new Uint8Array(32).fill(1));
  const b = ed25519FromSeed(new Uint8Array(32).fill(2));
  const key = { seed: a.seed.slice(), publicKey: a.publicKey };
  assert.ok(ed25519Verify(a.publicKey, message, ed25519Sign(key, message)));
  assert.ok(ed25519Verify(a.publicKey, message, ed25519Sign(key, message))); // the kept key object
  key.seed.set(b.seed);
  const signature = ed25519Sign(key, message);
  assert.ok(ed25519Verify(b.publicKey, message, signature));
  assert.ok(!ed25519Verify(a.publicKey, message, signature));
});
