/**
 * The chain's per-version state reads (src/chain/state-at.ts): a version's answers are kept and
 * shared, a new version (a new block) is read afresh, and nothing is kept that a prune could have
 * made wrong or that failed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decimal } from '../../../src/app/state-access.ts';
import { bankKeys, evmKeys, STORES } from '../../../src/app/store-keys.ts';
import { VersionedState } from '../../../src/chain/state-at.ts';
import { BASE_DENOM } from '../../../src/primitives/identity.ts';
import { VersionReadCaches } from '../../../src/execution/version-reads.ts';
import type { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { StateStore } from '../../../src/storage/ss/types.ts';

const KEY = Uint8Array.of(1, 2, 3);

/** A chain whose state is `values[version]` for KEY, with SC holding `latest` + 1. */
function fixture(values: Record<number, number>, latest: number) {
  const calls = { ss: 0, sc: 0 };
  const state = { latest, earliest: 1, failNext: false, committing: false };
  const ss = {
    get: async (_store: string, _key: Uint8Array, version: number) => {
      calls.ss++;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('engine failed');
      }
      return version in values ? Uint8Array.of(values[version]) : undefined;
    },
    earliestVersion: () => state.earliest,
  } as unknown as StateStore;
  const sc = {
    get version() {
      return state.latest + 1;
    },
    get committing() {
      return state.committing;
    },
    get: () => {
      calls.sc++;
      return Uint8Array.of(values[state.latest + 1]);
    },
  } as unknown as CommitStore;
  const reads = new VersionedState({ ss, sc });
  return { reads, calls, state };
}

test('a version is read once; a new block is a new version, read afresh', async () => {
  const f = fixture({ 5: 10, 6: 20 }, 4);
  // latest (version 5) from SC, then from the cache
  assert.deepEqual(await f.reads.get('bank', KEY, 5), Uint8Array.of(10));
  assert.deepEqual(await f.reads.get('bank', KEY, 5), Uint8Array.of(10));
  assert.deepEqual(f.calls, { ss: 0, sc: 1 });
  // block 5 commits: latest is version 6, and version 5 keeps its value
  f.state.latest = 5;
  assert.deepEqual(await f.reads.get('bank', KEY, 6), Uint8Array.of(20));
  assert.deepEqual(await f.reads.get('bank', KEY, 5), Uint8Array.of(10));
  assert.deepEqual(f.calls, { ss: 0, sc: 2 });
  // an older version from SS, once; an absent key is kept as absent
  assert.equal(await f.reads.get('bank', KEY, 3), undefined);
  assert.equal(await f.reads.get('bank', KEY, 3), undefined);
  assert.equal(f.calls.ss, 1);
  // another key of the same version is its own read
  assert.deepEqual(await f.reads.get('bank', Uint8Array.of(1, 2), 5), Uint8Array.of(10));
  assert.equal(f.calls.ss, 2);
});

test('while State Commit commits the next version, its current version is read from the State Store', async () => {
  const f = fixture({ 5: 10 }, 4);
  f.state.committing = true;
  assert.deepEqual(await f.reads.get('bank', KEY, 5), Uint8Array.of(10));
  assert.deepEqual(f.calls, { ss: 1, sc: 0 });
  assert.equal(f.reads.committedGet('bank', KEY, 5), undefined, 'a synchronous run must start again');
  f.state.committing = false;
  assert.deepEqual(f.reads.committedGet('bank', KEY, 5), { value: Uint8Array.of(10) });
});

test('nothing is kept from a failed read or from a version pruned while it was read', async () => {
  const f = fixture({ 2: 7 }, 9);
  f.state.failNext = true;
  await assert.rejects(f.reads.get('bank', KEY, 2), /engine failed/);
  assert.deepEqual(await f.reads.get('bank', KEY, 2), Uint8Array.of(7));
  assert.equal(f.calls.ss, 2);
  f.state.earliest = 3; // pruned: the answer of this read is not kept
  await f.reads.get('bank', KEY, 1);
  await f.reads.get('bank', KEY, 1);
  assert.equal(f.calls.ss, 4);
});

test('one set of version caches per chain, shared by every adapter; the least recent version goes first', () => {
  const a = fixture({}, 1);
  const b = fixture({}, 1);
  assert.equal(a.reads.reads, a.reads.reads);
  assert.notEqual(a.reads.reads, b.reads.reads);
  const caches = new VersionReadCaches(2);
  const v1 = caches.at(1);
  v1.set('k', Uint8Array.of(1));
  caches.at(2).set('k', Uint8Array.of(2));
  assert.equal(caches.at(1), v1); // 1 is now the most recent
  caches.at(3); // drops 2
  assert.equal(caches.at(1), v1);
  assert.equal(caches.at(2).entries.size, 0);
});

test('an account read at a past height loads what only the State Store holds and runs the app readers again', async () => {
  const evm = new Uint8Array(20).fill(0xaa);
  const cosmos = new Uint8Array(20).fill(0xbb);
  const id = (store: string, key: Uint8Array) => `${store}/${Buffer.from(key).toString('hex')}`;
  const values = new Map([
    [id(STORES.evm, evmKeys.associationByEvm(evm)), cosmos],
    [id(STORES.bank, bankKeys.balance(cosmos, BASE_DENOM)), decimal(2n)],
    [id(STORES.bank, bankKeys.weiRemainder(cosmos)), decimal(5n)],
  ]);
  let ssReads = 0;
  const ss = {
    get: async (store: string, key: Uint8Array, version: number) => {
      ssReads++;
      assert.equal(version, 4);
      return values.get(id(store, key));
    },
    earliestVersion: () => 1,
  } as unknown as StateStore;
  const sc = { version: 10, committing: false } as unknown as CommitStore;
  const state = new VersionedState({ ss, sc }).at(3);
  // the association first (its cast's bank keys are read on the guess that there is none), then its bank keys
  assert.equal(await state.balance(evm), 2n * 10n ** 12n + 5n);
  assert.equal(ssReads, 5);
  assert.equal(await state.balance(evm), 2n * 10n ** 12n + 5n);
  assert.equal(ssReads, 5, 'kept for the version');
});
