/**
 * The State Store of `ss-enable = false` (src/node/latest-state-store.ts) answers the latest version
 * from State Commit and the few before it from the values each block overwrote. While State Commit
 * commits the next version, some of its stores already answer at that version (flatkv commits before
 * memiavl), so a read of the version before must come from the recorded values.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatestOnlyStateStore } from '../../../src/node/latest-state-store.ts';
import type { CommitStore } from '../../../src/storage/sc/commit-store.ts';

const KEY = Uint8Array.of(7);

function fakeCommitStore() {
  const s = { version: 5, committing: false, value: Uint8Array.of(50) };
  const sc = {
    get version() {
      return s.version;
    },
    get committing() {
      return s.committing;
    },
    get: () => s.value,
  } as unknown as CommitStore;
  return { s, sc };
}

test('a read of the latest version while the next one commits answers the value before it', async () => {
  const { s, sc } = fakeCommitStore();
  const store = new LatestOnlyStateStore(sc);
  assert.deepEqual(await store.get('evm', KEY, 5), Uint8Array.of(50));
  // block 5's change set arrives (version 6), then State Commit starts committing it
  await store.applyChangeSet(6, [{ store: 'evm', key: KEY, value: Uint8Array.of(60) }]);
  s.committing = true;
  s.value = Uint8Array.of(60); // flatkv has committed version 6, memiavl not yet
  assert.deepEqual(await store.get('evm', KEY, 5), Uint8Array.of(50));
  // committed: version 6 is the latest, version 5 is still served from what block 5 overwrote
  s.committing = false;
  s.version = 6;
  assert.deepEqual(await store.get('evm', KEY, 6), Uint8Array.of(60));
  assert.deepEqual(await store.get('evm', KEY, 5), Uint8Array.of(50));
});
