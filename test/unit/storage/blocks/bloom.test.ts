import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { Bloom as EthjsBloom } from '@ethereumjs/vm';
import { BloomBuilder, bloomHasProbe, bloomProbe, logsBloom } from '../../../../src/storage/blocks/bloom.ts';
import { fromHex, toHex } from '../../../../src/primitives/bytes.ts';
import { pools, prng } from './fixtures.ts';

/**
 * The yellow paper's definition, written independently: the bloom is a 2048-bit big-endian number;
 * for each item, bits (h[0..1] mod 2048), (h[2..3] mod 2048), (h[4..5] mod 2048) are set.
 */
function referenceBloom(items: Uint8Array[]): string {
  let n = 0n;
  for (const it of items) {
    const h = keccak_256(it);
    for (const i of [0, 2, 4]) n |= 1n << BigInt((h[i] * 256 + h[i + 1]) % 2048);
  }
  return n.toString(16).padStart(512, '0');
}

// USDT's mainnet address and the ERC-20 Transfer event signature
const USDT = fromHex('dac17f958d2ee523a2206206994597c13d831ec7');
const TRANSFER = fromHex('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
const FROM = fromHex('000000000000000000000000' + '28c6c06298d514db089934071355e5743bf21d60');
const TO = fromHex('000000000000000000000000' + '21a31ee1afc51d94c2efccaa2092ad1028285549');

test('bloom of a USDT Transfer log equals the yellow-paper definition, bit by bit', () => {
  const log = { address: USDT, topics: [TRANSFER, FROM, TO] };
  const got = logsBloom([log]);
  assert.equal(toHex(got), referenceBloom([USDT, TRANSFER, FROM, TO]));
  // keccak(Transfer topic) starts ada3 89e1 fc24: bits 0x5a3=1443, 0x1e1=481, 0x424=1060
  assert.equal(toHex(keccak_256(TRANSFER)).slice(0, 12), 'ada389e1fc24');
  const topicOnly = logsBloom([{ address: new Uint8Array(20), topics: [TRANSFER] }]);
  const addressOnly = logsBloom([{ address: new Uint8Array(20), topics: [] }]);
  for (const bit of [1443, 481, 1060]) {
    const byte = 255 - (bit >> 3);
    const mask = 1 << (bit & 7);
    assert.ok(topicOnly[byte] & mask, `bit ${bit} set`);
    assert.equal(topicOnly[byte] & ~addressOnly[byte] & mask, mask, `bit ${bit} comes from the topic`);
  }
});

test('bloom equals ethereumjs Bloom on random logs; probes find what was added', () => {
  const { addresses, topics } = pools(30, 30);
  const rand = prng(11);
  for (let round = 0; round < 20; round++) {
    const logs = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => ({
      address: addresses[Math.floor(rand() * addresses.length)],
      topics: Array.from(
        { length: Math.floor(rand() * 5) },
        () => topics[Math.floor(rand() * topics.length)],
      ),
    }));
    const ref = new EthjsBloom();
    for (const l of logs) {
      ref.add(l.address);
      for (const t of l.topics) ref.add(t);
    }
    const got = logsBloom(logs);
    assert.equal(toHex(got), toHex(ref.bitvector));
    for (const l of logs) assert.ok(bloomHasProbe(got, bloomProbe(l.address)));
    // the builder's de-duplication does not change the result
    assert.deepEqual(new BloomBuilder().addLogs([...logs, ...logs]).bloom, got);
  }
  assert.deepEqual(logsBloom([]), new Uint8Array(256));
});
