import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { accountFromPrivateKey } from '../../../src/crypto/accounts.ts';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import {
  ECRECOVER_BACKEND,
  ecrecover,
  recoverAddress,
  recoverPublicKeyNative,
  recoverPublicKeyNoble,
  recoveryIdFromV,
} from '../../../src/execution/ecrecover.ts';

const key = keccak_256(new TextEncoder().encode('chaind ecrecover test key'));
const account = accountFromPrivateKey(key);
const msgHash = keccak_256(new TextEncoder().encode('hello'));
const sig = secp256k1.sign(msgHash, key, { prehash: false, format: 'recovered' }); // recovery ‖ r ‖ s
const recovery = sig[0] as 0 | 1;
const r = sig.subarray(1, 33);
const s = sig.subarray(33, 65);

test('the native secp256k1 binding is loaded, not a JS fallback', () => {
  assert.equal(ECRECOVER_BACKEND, 'native');
  assert.ok(recoverPublicKeyNative);
});

test('recoverAddress returns the signer for yParity, 27/28 and bigint scalars', () => {
  assert.deepEqual(recoverAddress(msgHash, recovery, r, s), account.evmAddress);
  assert.deepEqual(recoverAddress(msgHash, 27 + recovery, r, s), account.evmAddress);
  const big = (b: Uint8Array) => BigInt('0x' + Buffer.from(b).toString('hex'));
  assert.deepEqual(recoverAddress(msgHash, BigInt(recovery), big(r), big(s)), account.evmAddress);
  // the other parity recovers a different key
  assert.notDeepEqual(recoverAddress(msgHash, 1 - recovery, r, s), account.evmAddress);
});

test('native and noble recovery agree', () => {
  const rs = sig.subarray(1);
  assert.deepEqual(
    recoverPublicKeyNative!(msgHash, rs, recovery),
    recoverPublicKeyNoble(msgHash, rs, recovery),
  );
  assert.deepEqual(
    recoverPublicKeyNoble(msgHash, rs, recovery),
    secp256k1.getPublicKey(key, false).subarray(1),
  );
});

test('ecrecover (customCrypto) understands EIP-155 v and unpadded scalars', () => {
  const chainId = 713714n;
  const v = chainId * 2n + 35n + BigInt(recovery);
  const pub = ecrecover(msgHash, v, r, s, chainId);
  assert.deepEqual(pub, secp256k1.getPublicKey(key, false).subarray(1));
  // leading zero bytes stripped, as ethereumjs passes them
  const stripped = (b: Uint8Array) => b.subarray(b.findIndex((x) => x !== 0));
  assert.deepEqual(ecrecover(msgHash, 27n + BigInt(recovery), stripped(r), stripped(s)), pub);
});

test('invalid v and zero scalars are refused', () => {
  assert.throws(() => recoveryIdFromV(29n), /invalid signature v value 29/);
  assert.throws(() => recoveryIdFromV(713714n * 2n + 37n, 713714n), /invalid signature v value/);
  assert.throws(() => recoverAddress(msgHash, 0, new Uint8Array(32), s));
  assert.throws(() => recoverAddress(msgHash, 0, new Uint8Array(33).fill(1), s), /33 bytes/);
});

test('the chain Common routes ecrecover to the native implementation', () => {
  const common = createChainCommon({ chainId: 713714n });
  assert.equal(common.customCrypto.ecrecover, ecrecover);
  assert.equal(common.chainId(), 713714n);
  assert.equal(common.hardfork(), 'prague');
  for (const eip of [1559, 2930, 7702, 1153, 7623]) assert.ok(common.isActivatedEIP(eip), `EIP-${eip}`);
  assert.equal(common.isActivatedEIP(7825), false);
  // every fork is scheduled at genesis, so a block-based lookup cannot fall back to an older fork
  assert.equal(common.getHardforkBy({ blockNumber: 5n, timestamp: 10n }), 'prague');
  const osaka = createChainCommon({ chainId: 713714n, osaka: true });
  assert.equal(osaka.hardfork(), 'osaka');
  assert.ok(osaka.isActivatedEIP(7825));
  assert.throws(() => createChainCommon({ chainId: 0n }), /must be positive/);
});
