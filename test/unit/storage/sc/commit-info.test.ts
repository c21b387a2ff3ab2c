import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commitInfoHash } from '../../../../src/storage/sc/commit-info.ts';
import { fromHex, toHex, utf8 } from '../../../../src/primitives/bytes.ts';
import { loadVector } from './vectors.ts';

const v = loadVector('commit-info.json');

test('commit info hash reproduces vectors/commit-info.json maps', () => {
  assert.ok(v.maps.length >= 4);
  for (const m of v.maps) {
    const stores = Object.entries(m.entries as Record<string, string>).map(([name, value]) => ({
      name,
      hash: utf8(value),
    }));
    assert.equal(toHex(commitInfoHash(stores)), m.root, JSON.stringify(m.entries));
  }
});

test('commit info hash reproduces vectors/commit-info.json app hashes (empty root included)', () => {
  assert.ok(v.appHashes.cases.length >= 3);
  for (const c of v.appHashes.cases) {
    const stores = Object.entries(c.stores as Record<string, string>).map(([name, root]) => ({
      name,
      hash: fromHex(root),
    }));
    assert.equal(toHex(commitInfoHash(stores)), c.appHash);
    // order of the input must not matter: the hash sorts by name
    assert.equal(toHex(commitInfoHash(stores.reverse())), c.appHash);
  }
});
