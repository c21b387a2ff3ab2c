/**
 * Operator rollback of the State Store: every version above the target disappears from every
 * database (Cosmos SS and each EVM SS database) and from the changelogs, reads at and below the
 * target are unchanged, and the next version can be written again with different contents.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  openStateStore,
  SSRollbackRangeError,
  SSVersionTooHighError,
  type StateStoreOptions,
} from '../../../../src/storage/ss/index.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { prng, tempDir } from './helpers.ts';

const KEYS = [
  Uint8Array.of(0x0a, 1),
  Uint8Array.of(0x03, 1, 0),
  Uint8Array.of(0x07, 2),
  Uint8Array.of(0x01, 0, 0),
  Uint8Array.of(0x02),
];
const STORES = ['bank', 'evm', 'acc'];

for (const [name, extra, recentKeys] of [
  ['sync writes', { asyncWriteBuffer: 0 }],
  ['async writes', { asyncWriteBuffer: 4 }],
  ['split, five EVM databases', { asyncWriteBuffer: 4, evmSplit: true, evmSeparateDbs: true }],
  // a dev chain's: the entries of recent versions are remembered and deleted one by one
  ['recent writes remembered', { asyncWriteBuffer: 0 }, 10_000],
  ['recent writes remembered, split', { asyncWriteBuffer: 4, evmSplit: true, evmSeparateDbs: true }, 10_000],
  // too few remembered to cover every version above the target: the scan
  ['recent writes remembered, too few', { asyncWriteBuffer: 0 }, 20],
] as [string, Partial<StateStoreOptions>, number?][]) {
  test(`rollback discards the versions above the target (${name})`, async (t) => {
    const dir = tempDir('chaind-ss-rollback-');
    t.after(() => dir.remove());
    const opts: StateStoreOptions = { dataDir: dir.path, keepRecent: 0, sync: false, ...extra };
    const rand = prng(7);
    const history: Map<string, Uint8Array | undefined>[] = [new Map()];
    let ss = await openStateStore(opts, silentLogger);
    if (recentKeys) ss.keepRecentWrites?.(recentKeys);
    for (let v = 1; v <= 20; v++) {
      const state = new Map(history[v - 1]);
      const changes = [];
      for (const store of STORES) {
        for (const key of KEYS) {
          if (rand() < 0.5) continue;
          const value = rand() < 0.25 ? null : Uint8Array.of(v, Math.floor(rand() * 256));
          changes.push({ store, key, value });
          state.set(`${store}/${key}`, value ?? undefined);
        }
      }
      await ss.applyChangeSet(v, changes);
      history.push(state);
    }
    await ss.rollback(12);
    assert.equal(ss.latestVersion(), 12);
    await assert.rejects(ss.get('bank', KEYS[0], 13), SSVersionTooHighError);
    await assert.rejects(ss.rollback(25), SSRollbackRangeError);
    await ss.close();

    // After a reopen nothing above 12 comes back (no changelog replay), and 13 can be written anew.
    ss = await openStateStore(opts, silentLogger);
    assert.equal(ss.latestVersion(), 12);
    for (let v = 1; v <= 12; v++) {
      for (const store of STORES) {
        for (const key of KEYS)
          assert.deepEqual(
            await ss.get(store, key, v),
            history[v].get(`${store}/${key}`),
            `v${v} ${store}/${key}`,
          );
      }
    }
    await ss.applyChangeSet(13, [{ store: 'evm', key: KEYS[0], value: Uint8Array.of(99) }]);
    assert.deepEqual(await ss.get('evm', KEYS[0], 13), Uint8Array.of(99));
    assert.deepEqual(await ss.get('bank', KEYS[1], 13), history[12].get(`bank/${KEYS[1]}`));
    // the versions above 12 are written again with one key each: an entry of the discarded ones left
    // behind would show through at them
    for (let v = 14; v <= 20; v++)
      await ss.applyChangeSet(v, [{ store: 'evm', key: KEYS[0], value: Uint8Array.of(v) }]);
    for (const store of STORES)
      for (const key of KEYS.slice(1))
        assert.deepEqual(await ss.get(store, key, 20), history[12].get(`${store}/${key}`), `${store}/${key}`);
    await ss.close();
  });
}
