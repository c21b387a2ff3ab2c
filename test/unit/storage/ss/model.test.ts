/**
 * Seeded model test: random change sets (puts, overwrites, deletes, re-puts of deleted keys) over many
 * versions, then random `get`/`has` and iterators at random versions, compared with an in-memory
 * reference, for every engine × async writes on/off × pruning on/off × split on/off. Persistent
 * engines are also closed, reopened and checked again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import {
  EVM_KEY_PREFIX,
  openStateStore,
  SSIterationDisabledError,
  SSVersionTooHighError,
  type StateStoreOptions,
} from '../../../../src/storage/ss/index.ts';
import type { StateStore, StoreChange } from '../../../../src/storage/ss/types.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { prng, ReferenceModel, tempDir } from './helpers.ts';

const VERSIONS = 36;
const STORES = ['acc', 'bank', 'evm'];
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : 'absent');

function keyPool(rand: () => number, store: string): Uint8Array[] {
  const keys: Uint8Array[] = [
    new Uint8Array([0]),
    new Uint8Array([0, 0]),
    new Uint8Array([1]),
    new Uint8Array([0xff]),
  ];
  const prefixes = Object.values(EVM_KEY_PREFIX);
  while (keys.length < 24) {
    const len = 1 + Math.floor(rand() * 5);
    // Bytes drawn mostly from {0x00, 0x01, 0x02, 0xff} so that escaping and prefix keys are exercised.
    const key = Uint8Array.from({ length: len }, () => [0, 1, 2, 0xff, 0x7f][Math.floor(rand() * 5)]);
    if (store === 'evm' && rand() < 0.8) key[0] = prefixes[Math.floor(rand() * prefixes.length)];
    keys.push(key);
  }
  keys.push(Uint8Array.of(...keys[5], 0)); // a key that extends another by a 0x00 byte
  return keys;
}

function randomChangeSet(
  rand: () => number,
  pools: Map<string, Uint8Array[]>,
  version: number,
): StoreChange[] {
  const changes: StoreChange[] = [];
  const n = 4 + Math.floor(rand() * 14);
  for (let i = 0; i < n; i++) {
    const store = STORES[Math.floor(rand() * STORES.length)];
    const pool = pools.get(store)!;
    const key = pool[Math.floor(rand() * pool.length)];
    const value =
      rand() < 0.25
        ? null
        : rand() < 0.1
          ? new Uint8Array(0)
          : Uint8Array.of(version & 0xff, i, Math.floor(rand() * 256));
    changes.push({ store, key, value });
  }
  return changes;
}

interface Combo {
  engine: 'memory' | 'lmdb' | 'rocksdb';
  async: boolean;
  prune: boolean;
  split: boolean;
}

const combos: Combo[] = [];
for (const engine of ['memory', 'lmdb', 'rocksdb'] as const)
  for (const async of [false, true])
    for (const prune of [false, true])
      for (const split of [false, true]) combos.push({ engine, async, prune, split });

async function verify(
  ss: StateStore,
  model: ReferenceModel,
  pools: Map<string, Uint8Array[]>,
  rand: () => number,
  split: boolean,
) {
  const latest = ss.latestVersion();
  const earliest = ss.earliestVersion();
  for (let i = 0; i < 120; i++) {
    const store = STORES[Math.floor(rand() * STORES.length)];
    const pool = pools.get(store)!;
    const key = pool[Math.floor(rand() * pool.length)];
    const version = Math.max(1, earliest - 2) + Math.floor(rand() * (latest - Math.max(1, earliest - 2) + 1));
    const expected = version < earliest ? undefined : model.get(store, key, version);
    const got = await ss.get(store, key, version);
    assert.equal(hex(got), hex(expected), `get ${store}/${hex(key)} @${version} (earliest ${earliest})`);
    assert.equal(await ss.has(store, key, version), expected !== undefined);
  }
  for (let i = 0; i < 12; i++) {
    const store = STORES[Math.floor(rand() * 2)]; // iteration is on non-EVM stores (EVM below)
    const pool = pools.get(store)!;
    const bound = () => (rand() < 0.3 ? undefined : pool[Math.floor(rand() * pool.length)]);
    const [start, end] = [bound(), bound()];
    const version = earliest + Math.floor(rand() * (latest - earliest + 1));
    const reverse = rand() < 0.5;
    const got: string[] = [];
    for await (const [k, v] of ss.iterator(store, start, end, version, reverse))
      got.push(`${hex(k)}=${hex(v)}`);
    const want = model.range(store, start, end, version, reverse).map(([k, v]) => `${hex(k)}=${hex(v)}`);
    assert.deepEqual(
      got,
      want,
      `iterator ${store} [${hex(start)}, ${hex(end)}) @${version} reverse=${reverse}`,
    );
  }
  if (split) {
    assert.throws(() => ss.iterator('evm', undefined, undefined, latest), SSIterationDisabledError);
  } else {
    const got: string[] = [];
    for await (const [k, v] of ss.iterator('evm', undefined, undefined, latest))
      got.push(`${hex(k)}=${hex(v)}`);
    assert.deepEqual(
      got,
      model.range('evm', undefined, undefined, latest, false).map(([k, v]) => `${hex(k)}=${hex(v)}`),
    );
  }
  await assert.rejects(ss.get('acc', Uint8Array.of(1), latest + 1), SSVersionTooHighError);
}

describe('SS model test', () => {
  for (const combo of combos) {
    const name = `${combo.engine} async=${combo.async} prune=${combo.prune} split=${combo.split}`;
    test(name, async () => {
      const seed = combos.indexOf(combo) * 7919 + 17;
      const rand = prng(seed);
      const dir = tempDir('ss-model-');
      const options: StateStoreOptions = {
        dataDir: dir.path,
        backend: combo.engine === 'rocksdb' ? 'rocksdb' : 'pebbledb',
        asyncWriteBuffer: combo.async ? 4 : 0,
        keepRecent: 0,
        evmSplit: combo.split,
        evmSeparateDbs: combo.split && seed % 2 === 1,
        sync: false,
      };
      if (combo.engine === 'memory') options.openEngine = async () => new MemoryKVStore();
      const pools = new Map(STORES.map((s) => [s, keyPool(rand, s)]));
      const model = new ReferenceModel();
      let ss = await openStateStore(options, silentLogger);
      try {
        for (let version = 1; version <= VERSIONS; version++) {
          const changes = randomChangeSet(rand, pools, version);
          await ss.applyChangeSet(version, changes);
          model.apply(version, changes);
          if (combo.async && rand() < 0.2) {
            // A read of an accepted version waits for the background writer instead of failing.
            const key = pools.get('acc')![0];
            assert.equal(hex(await ss.get('acc', key, version)), hex(model.get('acc', key, version)));
          }
          if (combo.prune && (version === 15 || version === 30)) await ss.prune(version - 6);
        }
        await ss.flush();
        assert.equal(ss.latestVersion(), VERSIONS);
        assert.equal(ss.earliestVersion(), combo.prune ? 24 : 1);
        await verify(ss, model, pools, rand, combo.split);
        if (combo.engine !== 'memory') {
          await ss.close();
          ss = await openStateStore(options, silentLogger);
          assert.equal(ss.latestVersion(), VERSIONS);
          assert.equal(ss.earliestVersion(), combo.prune ? 24 : 1);
          await verify(ss, model, pools, rand, combo.split);
        }
      } finally {
        await ss.close();
        dir.remove();
      }
    });
  }
});
