/**
 * One suite, every engine: the behaviour the MVCC store and the State Commit rely on. RocksDB runs
 * only when its optional package is installed (it is in this repository's lockfile).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import { openRocksStore } from '../../../../src/storage/kv/rocksdb.ts';
import type { KVEntry, KVRange, KVReader, KVStore } from '../../../../src/storage/kv/types.ts';

const root = mkdtempSync(join(tmpdir(), 'kv-conformance-'));
after(() => rmSync(root, { recursive: true, force: true }));

interface Engine {
  name: string;
  persistent: boolean;
  open(dir: string): Promise<KVStore>;
}

const engines: Engine[] = [
  { name: 'memory', persistent: false, open: async () => new MemoryKVStore() },
  // unsynced writes are synchronous transactions, synced ones lmdb-js batches: both paths
  { name: 'lmdb', persistent: true, open: (dir) => openLmdbStore(dir, { sync: false }) },
  { name: 'lmdb synced', persistent: true, open: (dir) => openLmdbStore(dir) },
  { name: 'rocksdb', persistent: true, open: (dir) => openRocksStore(dir, { sync: false }) },
];

const b = (...bytes: number[]) => Uint8Array.from(bytes);
const hex = (u: Uint8Array) => Buffer.from(u).toString('hex');

async function collect(reader: KVReader, range?: KVRange): Promise<string[]> {
  const out: string[] = [];
  for await (const [k, v] of reader.iterate(range)) out.push(`${hex(k)}=${hex(v)}`);
  return out;
}

let dirCount = 0;
const freshDir = () => join(root, `db-${dirCount++}`);

for (const engine of engines) {
  describe(`KV conformance: ${engine.name}`, () => {
    test('get, has, put, delete; values are independent copies', async () => {
      const db = await engine.open(freshDir());
      try {
        assert.equal(await db.get(b(1)), undefined);
        assert.equal(await db.has(b(1)), false);
        const value = b(7, 8, 9);
        await db.write([{ type: 'put', key: b(1), value }]);
        value[0] = 0; // mutating the caller's buffer after the write must not change the stored value
        assert.deepEqual(await db.get(b(1)), b(7, 8, 9));
        assert.equal(await db.has(b(1)), true);
        if (db.getSync) assert.deepEqual(db.getSync(b(1)), b(7, 8, 9));
        await db.write([{ type: 'put', key: b(1), value: b(5) }]);
        assert.deepEqual(await db.get(b(1)), b(5));
        await db.write([{ type: 'del', key: b(1) }]);
        assert.equal(await db.get(b(1)), undefined);
        assert.equal(await db.has(b(1)), false);
        await db.write([{ type: 'del', key: b(42) }]); // deleting an absent key is not an error
      } finally {
        await db.close();
      }
    });

    test('a batch applies in order and atomically; later ops on one key win', async () => {
      const db = await engine.open(freshDir());
      try {
        await db.write([
          { type: 'put', key: b(1), value: b(1) },
          { type: 'put', key: b(2), value: b(2) },
          { type: 'del', key: b(1) },
          { type: 'put', key: b(3), value: b(3) },
          { type: 'put', key: b(3), value: b(33) },
        ]);
        assert.deepEqual(await collect(db), ['02=02', '03=21']);
        // A batch that cannot be applied (invalid op) leaves nothing behind.
        const bad = [{ type: 'put', key: b(9), value: b(9) }, { type: 'bogus' }] as never;
        await assert.rejects(async () => db.write(bad));
        assert.equal(await db.get(b(9)), undefined);
      } finally {
        await db.close();
      }
    });

    test('memcmp key order, including 0x00 and 0xff bytes and prefixes', async () => {
      const db = await engine.open(freshDir());
      try {
        const keys = [
          b(0xff),
          b(0),
          b(0, 0),
          b(1),
          b(1, 0),
          b(1, 0xff),
          b(0xff, 0xff),
          b(0x7f),
          b(0x80),
          b(1, 0, 0),
        ];
        await db.write(keys.map((key, i) => ({ type: 'put', key, value: b(i) })));
        const sorted = keys.map(hex).sort();
        assert.deepEqual(
          (await collect(db)).map((e) => e.split('=')[0]),
          sorted,
        );
        assert.deepEqual(
          (await collect(db, { reverse: true })).map((e) => e.split('=')[0]),
          sorted.slice().reverse(),
        );
      } finally {
        await db.close();
      }
    });

    test('bounded forward and reverse iteration: gte inclusive, lt exclusive, limits', async () => {
      const db = await engine.open(freshDir());
      try {
        await db.write([1, 2, 3, 4, 5, 6].map((k) => ({ type: 'put', key: b(k), value: b(k * 10) })));
        const keysOf = async (r: KVRange) => (await collect(db, r)).map((e) => e.split('=')[0]);
        assert.deepEqual(await keysOf({ gte: b(2), lt: b(5) }), ['02', '03', '04']);
        assert.deepEqual(await keysOf({ gte: b(2), lt: b(5), reverse: true }), ['04', '03', '02']);
        assert.deepEqual(await keysOf({ gte: b(2), lt: b(5), limit: 2 }), ['02', '03']);
        assert.deepEqual(await keysOf({ gte: b(2), lt: b(5), reverse: true, limit: 2 }), ['04', '03']);
        assert.deepEqual(await keysOf({ gte: b(2, 0) }), ['03', '04', '05', '06']);
        assert.deepEqual(await keysOf({ lt: b(2, 0), reverse: true }), ['02', '01']);
        assert.deepEqual(await keysOf({ gte: b(4), reverse: true }), ['06', '05', '04']);
        assert.deepEqual(await keysOf({ gte: b(3), lt: b(3) }), []);
        assert.deepEqual(await keysOf({ limit: 0 }), []);
        assert.deepEqual(await keysOf({ gte: b(7) }), []);
        assert.deepEqual(await collect(db, { gte: b(6) }), ['06=3c']);
        // Breaking out of an iteration early releases it cleanly.
        for await (const _ of db.iterate()) break;
        if (db.iterateSync) assert.deepEqual([...db.iterateSync({ gte: b(5) })].length, 2);
      } finally {
        await db.close();
      }
    });

    test('a snapshot is isolated from later writes until released', async () => {
      const db = await engine.open(freshDir());
      try {
        await db.write([
          { type: 'put', key: b(1), value: b(1) },
          { type: 'put', key: b(2), value: b(2) },
        ]);
        const snap = db.snapshot();
        await db.write([
          { type: 'put', key: b(1), value: b(11) },
          { type: 'del', key: b(2) },
          { type: 'put', key: b(3), value: b(3) },
        ]);
        assert.deepEqual(await snap.get(b(1)), b(1));
        assert.equal(await snap.has(b(2)), true);
        assert.equal(await snap.has(b(3)), false);
        if (snap.getSync) assert.deepEqual(snap.getSync(b(1)), b(1));
        assert.deepEqual(await collect(snap), ['01=01', '02=02']);
        assert.deepEqual(await collect(snap, { reverse: true, limit: 1 }), ['02=02']);
        assert.deepEqual(await collect(db), ['01=0b', '03=03']);
        snap.release();
      } finally {
        await db.close();
      }
    });

    test('zero-length values are stored and read back as empty, not absent', async () => {
      const db = await engine.open(freshDir());
      try {
        await db.write([{ type: 'put', key: b(1), value: new Uint8Array(0) }]);
        assert.equal(await db.has(b(1)), true);
        assert.deepEqual(await db.get(b(1)), new Uint8Array(0));
        const entries: KVEntry[] = [];
        for await (const e of db.iterate()) entries.push(e);
        assert.equal(entries.length, 1);
        assert.equal(entries[0][1].length, 0);
      } finally {
        await db.close();
      }
    });

    if (engine.persistent) {
      test('data survives close and reopen; use after close is an error', async () => {
        const dir = freshDir();
        const db = await engine.open(dir);
        const big = new Uint8Array(100_000).fill(7);
        await db.write([
          { type: 'put', key: b(1), value: b(1) },
          { type: 'put', key: b(2), value: big },
        ]);
        await db.close();
        await assert.rejects(async () => db.get(b(1)), /closed/);
        const again = await engine.open(dir);
        try {
          assert.deepEqual(await again.get(b(1)), b(1));
          assert.deepEqual(await again.get(b(2)), big);
          // values of every size come back exact from each synchronous read, however the engine
          // buffers them (lmdb answers from a reusable buffer longer than the value)
          const mid = Uint8Array.from({ length: 65 }, (_, i) => i);
          await again.write([{ type: 'put', key: b(3), value: mid }]);
          const snap = again.snapshot();
          try {
            for (const [key, value] of [
              [b(1), b(1)],
              [b(2), big],
              [b(3), mid],
            ] as const) {
              if (again.getSync) assert.deepEqual(again.getSync(key), value);
              if (again.getSyncView) assert.deepEqual(again.getSyncView(key)?.slice(), value);
              if (snap.getSync) assert.deepEqual(snap.getSync(key), value);
              if (snap.getSyncView) assert.deepEqual(snap.getSyncView(key)?.slice(), value);
            }
          } finally {
            snap.release();
          }
        } finally {
          await again.close();
        }
      });
    }
  });
}
