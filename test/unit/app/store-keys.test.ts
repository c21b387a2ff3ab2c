import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accKeys, bankKeys, evmKeys, slashingKeys, stakingKeys } from '../../../src/app/store-keys.ts';
import { concatBytes, utf8 } from '../../../src/primitives/bytes.ts';
import { EVM_KEY_PREFIX } from '../../../src/storage/ss/evm-keys.ts';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (seed + i * 31) & 0xff);
const lp = (a: Uint8Array) => concatBytes(Uint8Array.of(a.length), a);

// The key layouts are consensus-critical: each builder gives exactly the bytes of its definition.
test('every key is the concatenation its layout defines, for 20- and 32-byte addresses', () => {
  for (const n of [20, 32, 0, 1]) {
    const a = bytes(n, n);
    const slot = bytes(32, 7);
    assert.deepEqual(accKeys.account(a), concatBytes(Uint8Array.of(0x01), a));
    assert.deepEqual(bankKeys.balance(a, 'uchain'), concatBytes(Uint8Array.of(0x02), lp(a), utf8('uchain')));
    assert.deepEqual(bankKeys.weiRemainder(a), concatBytes(Uint8Array.of(0x05), lp(a)));
    assert.deepEqual(stakingKeys.validator(a), concatBytes(Uint8Array.of(0x21), lp(a)));
    assert.deepEqual(slashingKeys.signingInfo(a), concatBytes(Uint8Array.of(0x01), lp(a)));
    assert.deepEqual(slashingKeys.missedBlocks(a), concatBytes(Uint8Array.of(0x02), lp(a)));
    assert.deepEqual(evmKeys.associationByEvm(a), concatBytes(Uint8Array.of(0x01), a));
    assert.deepEqual(evmKeys.associationByCosmos(a), concatBytes(Uint8Array.of(0x02), a));
    assert.deepEqual(evmKeys.storage(a, slot), concatBytes(Uint8Array.of(EVM_KEY_PREFIX.storage), a, slot));
    assert.deepEqual(evmKeys.storagePrefix(a), concatBytes(Uint8Array.of(EVM_KEY_PREFIX.storage), a));
    assert.deepEqual(evmKeys.code(a), concatBytes(Uint8Array.of(EVM_KEY_PREFIX.code), a));
    assert.deepEqual(evmKeys.codeHash(a), concatBytes(Uint8Array.of(EVM_KEY_PREFIX.codehash), a));
    assert.deepEqual(evmKeys.nonce(a), concatBytes(Uint8Array.of(EVM_KEY_PREFIX.nonce), a));
  }
  // the prefixes themselves, as stored on disk and hashed into the app hash
  const a = bytes(20, 3);
  assert.deepEqual([...evmKeys.nonce(a).subarray(0, 1)], [EVM_KEY_PREFIX.nonce]);
  assert.deepEqual([...bankKeys.weiRemainder(a).subarray(0, 2)], [0x05, 20]);
});
