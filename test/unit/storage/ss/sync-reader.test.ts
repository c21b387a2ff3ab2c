/** syncReaderAt: the synchronous reads a debug_trace* replay runs on (real lmdb, both layouts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  openStateStore,
  SSVersionPrunedError,
  SSVersionTooHighError,
} from '../../../../src/storage/ss/index.ts';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { tempDir } from './helpers.ts';

const b = (...bytes: number[]) => Uint8Array.from(bytes);
const NONCE = b(0x0a, 1, 2);
const SLOT = b(0x03, 1, 2, 3);

for (const split of [false, true]) {
  test(`reads at a version equal the async reads, once the writer applied it (evm-ss-split=${split})`, async () => {
    const dir = tempDir('ss-sync-');
    const ss = await openStateStore(
      { dataDir: dir.path, asyncWriteBuffer: 8, keepRecent: 0, sync: false, evmSplit: split },
      silentLogger,
    );
    try {
      await ss.applyChangeSet(1, [
        { store: 'evm', key: NONCE, value: b(1) },
        { store: 'bank', key: b(1), value: b(10) },
      ]);
      await ss.applyChangeSet(2, [
        { store: 'evm', key: NONCE, value: b(2) },
        { store: 'evm', key: SLOT, value: b(7) },
      ]);
      // accepted but perhaps not applied yet by the background writer: the reader waits for it
      await ss.applyChangeSet(3, [
        { store: 'evm', key: SLOT, value: null },
        { store: 'bank', key: b(1), value: b(30) },
      ]);
      for (const version of [1, 2, 3]) {
        const read = await ss.syncReaderAt(version);
        assert.ok(read, 'lmdb reads synchronously');
        for (const [store, key] of [
          ['evm', NONCE],
          ['evm', SLOT],
          ['bank', b(1)],
          ['bank', b(9)],
        ] as const) {
          assert.deepEqual(read(store, key), await ss.get(store, key, version), `${store} at ${version}`);
        }
      }
      await assert.rejects(ss.syncReaderAt(4), SSVersionTooHighError);
    } finally {
      await ss.close();
      dir.remove();
    }
  });
}

test('a reader whose version is pruned away throws instead of answering from partial history', async () => {
  const dir = tempDir('ss-sync-');
  const ss = await openStateStore(
    { dataDir: dir.path, asyncWriteBuffer: 0, keepRecent: 0, sync: false, evmSplit: true },
    silentLogger,
  );
  try {
    for (let v = 1; v <= 4; v++) await ss.applyChangeSet(v, [{ store: 'evm', key: NONCE, value: b(v) }]);
    const read = (await ss.syncReaderAt(2))!;
    assert.deepEqual(read('evm', NONCE), b(2));
    await ss.prune(3);
    assert.throws(() => read('evm', NONCE), SSVersionPrunedError);
    assert.throws(
      () => read('bank', b(1)),
      /version 2 was pruned while being read: the earliest version is now 3/,
    );
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('an engine without synchronous reads gets no reader', async () => {
  const dir = tempDir('ss-sync-');
  const ss = await openStateStore(
    {
      dataDir: dir.path,
      asyncWriteBuffer: 0,
      keepRecent: 0,
      sync: false,
      // like rocksdb: asynchronous reads only
      openEngine: async () => Object.assign(new MemoryKVStore(), { iterateSync: undefined }),
    },
    silentLogger,
  );
  try {
    await ss.applyChangeSet(1, []);
    assert.equal(await ss.syncReaderAt(1), undefined);
  } finally {
    await ss.close();
    dir.remove();
  }
});
