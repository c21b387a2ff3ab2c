import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decimal, readDecimal, readU64be, u64be } from '../../../src/app/state-access.ts';
import { bankKeys } from '../../../src/app/store-keys.ts';
import { concatBytes, utf8 } from '../../../src/primitives/bytes.ts';

test('decimal amounts: the fast paths give exactly the TextEncoder/TextDecoder results', () => {
  for (const n of [0n, 7n, 10n ** 12n - 1n, 10n ** 30n, 2n ** 256n, -5n]) {
    assert.deepEqual(decimal(n), new TextEncoder().encode(n.toString()));
    if (n >= 0n) assert.equal(readDecimal(decimal(n)), n);
  }
  assert.equal(readDecimal(undefined), 0n);
  assert.equal(readDecimal(utf8('007')), 7n);
  // a leading BOM is dropped by TextDecoder, as it always was
  assert.equal(readDecimal(Uint8Array.of(0xef, 0xbb, 0xbf, 0x31)), 1n);
  for (const bad of ['', '-1', '1.5', ' 1', '１']) {
    assert.throws(() => readDecimal(utf8(bad)), /corrupt amount/, JSON.stringify(bad));
  }
  assert.equal(readDecimal(utf8('9'.repeat(300))), BigInt('9'.repeat(300)));
});

test('the bank balance key is len-prefixed address ‖ denom, built in one piece', () => {
  const addr = Uint8Array.from({ length: 20 }, (_, i) => i + 1);
  for (const denom of ['uchain', 'ibc/ABC', 'é']) {
    assert.deepEqual(
      bankKeys.balance(addr, denom),
      concatBytes(Uint8Array.of(0x02, addr.length), addr, utf8(denom)),
    );
  }
  assert.notEqual(
    bankKeys.balance(addr, 'uchain'),
    bankKeys.balance(addr, 'uchain'),
    'a fresh key each call',
  );
});

test('u64be: the number path gives exactly the DataView bytes, up to 2^64 - 1', () => {
  for (const n of [
    0n,
    1n,
    255n,
    256n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 64n - 1n,
  ]) {
    const want = new Uint8Array(8);
    new DataView(want.buffer).setBigUint64(0, n);
    assert.deepEqual(u64be(n), want, String(n));
    assert.equal(readU64be(u64be(n)), n);
  }
});
