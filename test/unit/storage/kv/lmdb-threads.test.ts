/**
 * A snapshot taken on one thread sees every write another thread committed before it was taken,
 * even when the taking thread has not returned to its event loop in between (lmdb-js reuses a read
 * transaction until a timer resets it). flatkv's hash workers read previous values this way.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';

test('an lmdb snapshot on another thread sees writes committed before it was taken', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmdb-threads-'));
  const path = join(dir, 'db');
  const store = await openLmdbStore(path);
  try {
    const key = Uint8Array.of(1, 2, 3);
    await store.write([{ type: 'put', key, value: Uint8Array.of(1) }]);
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(new URL('../../../fixtures/workers/lmdb-snapshot-reader.ts', import.meta.url), {
      workerData: { path, key, signal },
    });
    const reply = new Promise<{ before: Uint8Array | null; after: Uint8Array | null }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    // wait (asynchronously: the worker's store open needs this thread's event loop) for its first read
    while (Atomics.load(signal, 0) !== 1) await Atomics.waitAsync(signal, 0, 0, 50).value;
    await store.write([{ type: 'put', key, value: Uint8Array.of(2) }]);
    Atomics.store(signal, 0, 2);
    Atomics.notify(signal, 0);
    const { before, after } = await reply;
    await worker.terminate();
    assert.deepEqual(before && [...before], [1]);
    assert.deepEqual(after && [...after], [2], 'the second snapshot must see the write made before it');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
