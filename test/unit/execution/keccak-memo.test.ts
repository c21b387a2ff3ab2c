import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256Memo } from '../../../src/execution/keccak-memo.ts';

test('the remembering keccak equals keccak-256 and hands out independent copies', () => {
  for (const len of [0, 1, 20, 32, 63, 64, 65, 200]) {
    const data = Uint8Array.from({ length: len }, (_, i) => (i * 13 + len) & 0xff);
    const a = keccak256Memo(data);
    const b = keccak256Memo(data);
    assert.deepEqual(a, keccak_256(data), `length ${len}`);
    assert.deepEqual(b, a);
    assert.notEqual(a, b, 'a copy per call');
    assert.equal(a.byteOffset, 0, 'own buffer from offset 0 (ethereumjs bloom reads result.buffer)');
    a.fill(0);
    assert.deepEqual(keccak256Memo(data), keccak_256(data), 'a caller changing its copy changes nothing');
  }
});
