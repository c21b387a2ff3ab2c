import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntry, encodeEntry } from '../../../../src/storage/sc/changelog-codec.ts';

test('changelog entries round-trip: long upgrade names ahead of pairs, deletes, empty and large values', () => {
  const entry = {
    version: 300,
    upgrades: [
      { name: 'x'.repeat(200) },
      { name: 'é'.repeat(90), renameFrom: 'y'.repeat(150) },
      { name: 'd', delete: true },
    ],
    changeSets: [
      {
        store: 'bank',
        pairs: [
          { key: Uint8Array.of(1), value: new Uint8Array(300).fill(7) },
          { key: new Uint8Array(200).fill(2), value: undefined },
          { key: Uint8Array.of(3), value: new Uint8Array(0) },
        ],
      },
      { store: 'z'.repeat(70), pairs: [] },
    ],
  };
  assert.deepEqual(decodeEntry(encodeEntry(entry)), entry);
});
