/**
 * LatticePool on a real lmdb: workers read the previous values of the chunks they claim from their
 * own read transaction, and the sums and values they send back equal a single-threaded pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import { LatticePool, sumWrites, type LatticeWrite } from '../../../../src/storage/sc/flatkv/lattice-pool.ts';
import { encodeAccount, locate, physicalKey, TABLES } from '../../../../src/storage/sc/flatkv/layout.ts';
import { randomBytes, rng, tempDir } from './helpers.ts';

test('lattice pool workers read unknown previous values from lmdb: same sums and values as one thread', async () => {
  const { dir, cleanup } = tempDir('lattice-pool-');
  const kvPath = join(dir, 'db');
  const db = await openLmdbStore(kvPath);
  const pool = new LatticePool(2, kvPath);
  try {
    const r = rng(31);
    const keys: Uint8Array[] = [];
    const rows = [];
    for (let i = 0; i < 700; i++) {
      const storage = i % 7 !== 0;
      const key = storage
        ? Uint8Array.from([0x03, ...randomBytes(r, 52, 52)])
        : Uint8Array.from([0x0a, ...randomBytes(r, 20, 20)]);
      keys.push(key);
      // two of three keys have a committed row; account rows carry the nonce field
      if (i % 3 !== 0) {
        const value = randomBytes(r, 1, 32);
        rows.push({
          type: 'put' as const,
          key: physicalKey(key),
          value: storage ? value : encodeAccount({ nonce: value, codehash: undefined })!,
        });
      }
    }
    await db.write(rows);
    const tableIndex = (w: LatticeWrite) => TABLES.indexOf(w.loc.table);
    const block = (): LatticeWrite[] =>
      keys.map((key, i) => ({
        key,
        loc: locate(key),
        value: i % 11 === 0 ? undefined : Uint8Array.of(i & 0xff, 1),
        prevKnown: false,
        prev: undefined,
      }));
    const reference = block();
    const expected = sumWrites(reference, TABLES.length, tableIndex, (k) => db.getSync!(k));
    for (const callerHashes of [false, true]) {
      const writes = block();
      const got = await pool.sum(writes, TABLES.length, tableIndex, (k) => db.getSync!(k), callerHashes);
      assert.deepEqual(got, expected, `sums, callerHashes=${callerHashes}`);
      writes.forEach((w, i) => {
        assert.ok(w.prevKnown);
        assert.deepEqual(w.prev, reference[i].prev, `previous value ${i}`);
      });
    }
    assert.ok(reference.filter((w) => w.prev !== undefined).length > 400, 'most keys had a row');
  } finally {
    await pool.close();
    await db.close();
    cleanup();
  }
});

test('closing the pool right after a sum waits for the workers still answering it: no worker is stopped inside lmdb', async () => {
  // A sum returns once every chunk is hashed, and a worker that claimed none may still be opening
  // its read transaction: stopping it from outside there aborts the whole process (lmdb throws
  // while its thread is being terminated; seen once in a few hundred runs of flatkv-wal). Each
  // worker must instead answer, close its lmdb handle and end by itself (exit code 0).
  const { dir, cleanup } = tempDir('lattice-pool-close-');
  const kvPath = join(dir, 'db');
  const db = await openLmdbStore(kvPath);
  try {
    await db.write([
      {
        type: 'put',
        key: physicalKey(Uint8Array.from([0x0a, ...new Uint8Array(20)])),
        value: encodeAccount({ nonce: Uint8Array.of(1), codehash: undefined })!,
      },
    ]);
    const tableIndex = (w: LatticeWrite) => TABLES.indexOf(w.loc.table);
    const key = Uint8Array.from([0x0a, ...new Uint8Array(20)]);
    for (let round = 0; round < 20; round++) {
      const pool = new LatticePool(4, kvPath);
      const writes: LatticeWrite[] = [
        { key, loc: locate(key), value: Uint8Array.of(round & 0xff), prevKnown: false, prev: undefined },
      ];
      // one chunk, claimed by this thread: both workers answer after the sum is done
      await pool.sum(writes, TABLES.length, tableIndex, (k) => db.getSync!(k));
      assert.deepEqual(await pool.close(), [0, 0, 0, 0], 'each worker ended by itself');
    }
  } finally {
    await db.close();
    cleanup();
  }
});
