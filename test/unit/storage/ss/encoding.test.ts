import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareBytes } from '../../../../src/primitives/bytes.ts';
import {
  keyRegion,
  logicalKeyOf,
  pointSeek,
  regionEnd,
  storePrefix,
  versionedKey,
  versionOf,
} from '../../../../src/storage/ss/encoding.ts';
import { prng } from './helpers.ts';

const randomKey = (rand: () => number) =>
  Uint8Array.from({ length: Math.floor(rand() * 6) }, () => [0, 1, 2, 0xfe, 0xff][Math.floor(rand() * 5)]);

test('encoded keys sort like (store, key) and, within a key, newest version first', () => {
  const rand = prng(7);
  const prefix = storePrefix('bank');
  const entries: { key: Uint8Array; version: number; encoded: Uint8Array }[] = [];
  for (let i = 0; i < 2000; i++) {
    const key = randomKey(rand);
    const version = Math.floor(rand() * 4) * 1_000_000_007 + Math.floor(rand() * 3);
    entries.push({ key, version, encoded: versionedKey(keyRegion(prefix, key), version) });
  }
  const byEncoding = entries.slice().sort((a, b) => compareBytes(a.encoded, b.encoded));
  for (let i = 1; i < byEncoding.length; i++) {
    const [a, b] = [byEncoding[i - 1], byEncoding[i]];
    const c = compareBytes(a.key, b.key);
    assert.ok(c < 0 || (c === 0 && a.version >= b.version), `order broken between entries ${i - 1} and ${i}`);
  }
});

test('keys, versions and stores round-trip; no encoded key contains 0x00 before its separator', () => {
  const rand = prng(11);
  for (let i = 0; i < 500; i++) {
    const store = ['acc', 'evm', 'a\u0000b', ''][i % 4];
    const prefix = storePrefix(store);
    const key = randomKey(rand);
    const version = i === 0 ? Number.MAX_SAFE_INTEGER : Math.floor(rand() * 2 ** 40);
    const encoded = versionedKey(keyRegion(prefix, key), version);
    assert.deepEqual(logicalKeyOf(encoded, prefix.length), key);
    assert.equal(versionOf(encoded), version);
    const body = encoded.subarray(prefix.length, encoded.length - 9);
    assert.ok(!body.includes(0), 'escaped key holds no 0x00');
    const seek = pointSeek(prefix, key, version);
    assert.deepEqual(seek.gte, encoded);
    assert.deepEqual(seek.lt, regionEnd(keyRegion(prefix, key)));
  }
});

test('stores never share entries, even when one name extends another', () => {
  const a = storePrefix('acc');
  const b = storePrefix('acc2');
  const k = versionedKey(keyRegion(b, Uint8Array.of(0)), 1);
  const range = pointSeek(a, new Uint8Array(0), 1);
  assert.ok(compareBytes(k, range.lt) >= 0 || compareBytes(k, range.gte) < 0);
  assert.ok(compareBytes(versionedKey(keyRegion(a, Uint8Array.of(0xff, 0xff)), 0), b) < 0);
});
