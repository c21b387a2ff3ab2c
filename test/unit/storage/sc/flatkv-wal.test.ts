/**
 * flatkv with its write-ahead log on lmdb: commits land in the log and a memory layer, rows reach
 * lmdb in background flushes (tiny intervals and chunks here, so that every path runs). A flush that
 * dies part-way (some chunks written, the metadata not) must reopen to the last committed version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import type { KVStore } from '../../../../src/storage/kv/types.ts';
import type { KVPair } from '../../../../src/storage/sc/types.ts';
import { FlatKV, type FlatKVOptions } from '../../../../src/storage/sc/flatkv/store.ts';
import { LtHash } from '../../../../src/storage/sc/flatkv/lthash.ts';
import { fromHex, toHex } from '../../../../src/primitives/bytes.ts';
import { randomBytes, randomEvmBlock, rng, tempDir } from './helpers.ts';

function referenceRoot(kv: Map<string, Uint8Array>): string {
  const h = new LtHash();
  for (const [k, v] of kv) h.add(fromHex(k), v);
  return toHex(h.root());
}

function assertReads(fk: FlatKV, model: Map<string, Uint8Array>, everKeys: Set<string>): void {
  for (const hex of everKeys) assert.deepEqual(fk.get(fromHex(hex)), model.get(hex), `key ${hex}`);
}

/** The test's lmdb store, left open when a FlatKV closes (several FlatKVs use it in turn). */
function shared(db: KVStore): KVStore {
  return Object.assign(Object.create(db) as KVStore, { close: async () => {} });
}

/**
 * A KV store whose writes after the first `n` never complete: the process died during the flush.
 * `dead` resolves when that happens (nothing of that instance writes afterwards, as in a real crash).
 */
function dyingAfter(db: KVStore, n: number): { kv: KVStore; dead: Promise<void> } {
  let writes = 0;
  let die!: () => void;
  const dead = new Promise<void>((resolve) => (die = resolve));
  const kv = Object.assign(Object.create(db) as KVStore, {
    write: (ops: Parameters<KVStore['write']>[0]) => {
      if (++writes <= n) return db.write(ops);
      die();
      return new Promise<void>(() => {});
    },
    close: async () => {},
  });
  return { kv, dead };
}

test('flatkv with a write-ahead log: reads, roots, crash mid-flush, reopen, rollback, export/import', async () => {
  const { dir, cleanup } = tempDir('flatkv-wal-');
  const db = await openLmdbStore(join(dir, 'db'));
  const opts: FlatKVOptions = {
    walDir: join(dir, 'wal'),
    flushInterval: 3,
    flushChunkRows: 7,
    undoWindow: 30,
    hashWorkers: 0,
  };
  try {
    const r = rng(17);
    const kv = new Map<string, Uint8Array>();
    const ever = new Set<string>();
    const roots: string[] = [];
    const models: Map<string, Uint8Array>[] = [];
    const blocks: KVPair[][] = [];
    let fk = await FlatKV.open(shared(db), opts);
    roots[0] = toHex(fk.committedHash());
    models[0] = new Map();
    const commitBlock = async (v: number): Promise<void> => {
      const pairs = randomEvmBlock(r, kv, 40);
      blocks[v] = pairs;
      for (const p of pairs) ever.add(toHex(p.key));
      fk.applyPairs(pairs);
      roots[v] = toHex(await fk.commit(v));
      models[v] = new Map(kv);
      assert.equal(roots[v], referenceRoot(kv), `root of ${v}`);
      // right after the commit a flush may be running: reads come from memory and lmdb together
      assertReads(fk, kv, ever);
    };
    for (let v = 1; v <= 12; v++) await commitBlock(v);

    // crash during a flush, after each possible number of landed transactions
    for (let landed = 0; landed <= 4; landed++) {
      const version = fk.version;
      await fk.close();
      const dying = dyingAfter(db, landed);
      fk = await FlatKV.open(dying.kv, opts);
      assert.equal(fk.version, version);
      const base = fk.version;
      for (let v = base + 1; v <= base + 4; v++) await commitBlock(v); // the 3rd starts a flush
      await dying.dead;
      const reopened = await FlatKV.open(shared(db), opts);
      assert.equal(reopened.version, base + 4);
      assert.equal(toHex(reopened.committedHash()), roots[base + 4]);
      assert.equal(toHex(reopened.rootAt(base + 1)), roots[base + 1]);
      assertReads(reopened, kv, ever);
      fk = reopened;
    }

    // a clean close flushes everything: reopening replays nothing and reads lmdb alone
    const last = fk.version;
    await fk.close();
    fk = await FlatKV.open(shared(db), opts);
    assert.equal(toHex(fk.committedHash()), roots[last]);
    assertReads(fk, kv, ever);

    // rollback across flushed and unflushed blocks, then the same blocks again give the same roots
    for (let v = last + 1; v <= last + 2; v++) await commitBlock(v);
    const target = last - 5;
    await fk.rollback(target);
    assert.equal(toHex(fk.committedHash()), roots[target]);
    assertReads(fk, models[target], ever);
    const again = await FlatKV.open(shared(db), opts);
    assert.equal(again.version, target, 'the log holds nothing above a rollback');
    await fk.close();
    fk = again;
    for (let v = target + 1; v <= last + 2; v++) {
      fk.applyPairs(blocks[v]);
      assert.equal(toHex(await fk.commit(v)), roots[v]);
    }
    assertReads(fk, models[last + 2], ever);

    // export while blocks sit in memory; import into a fresh store
    const rows = [];
    for await (const row of fk.export()) rows.push(row);
    assert.equal(rows.length, models[last + 2].size);
    const other = tempDir('flatkv-wal-import-');
    const fresh = await FlatKV.open(await openLmdbStore(join(other.dir, 'db')), {
      ...opts,
      walDir: join(other.dir, 'wal'),
    });
    await fresh.import(last + 2, rows);
    assert.equal(toHex(fresh.committedHash()), roots[last + 2]);
    for (const [hex, value] of models[last + 2]) assert.deepEqual(fresh.get(fromHex(hex)), value);
    await fresh.close();
    other.cleanup();
    await fk.close();
  } finally {
    await db.close();
    cleanup();
  }
});

test('flatkv with an async commit buffer: commits return before their log append; close makes them durable', async () => {
  const { dir, cleanup } = tempDir('flatkv-wal-async-');
  const db = await openLmdbStore(join(dir, 'db'));
  const opts: FlatKVOptions = {
    walDir: join(dir, 'wal'),
    flushInterval: 4,
    asyncCommitBuffer: 3,
    hashWorkers: 0,
  };
  try {
    const r = rng(5);
    const kv = new Map<string, Uint8Array>();
    const ever = new Set<string>();
    let fk = await FlatKV.open(shared(db), opts);
    let root = '';
    for (let v = 1; v <= 11; v++) {
      const pairs = randomEvmBlock(r, kv, 30);
      for (const p of pairs) ever.add(toHex(p.key));
      fk.applyPairs(pairs);
      root = toHex(await fk.commit(v));
      assert.equal(root, referenceRoot(kv));
      assertReads(fk, kv, ever);
    }
    await fk.close();
    fk = await FlatKV.open(shared(db), opts);
    assert.equal(fk.version, 11);
    assert.equal(toHex(fk.committedHash()), root);
    assertReads(fk, kv, ever);
    await fk.close();
  } finally {
    await db.close();
    cleanup();
  }
});

test('flatkv hash workers read previous values from lmdb themselves: roots match the reference across flushes, a reopen and a rollback', async () => {
  const { dir, cleanup } = tempDir('flatkv-wal-workers-');
  const kvPath = join(dir, 'db');
  const db = await openLmdbStore(kvPath);
  // blocks above the pool's threshold, flushed every other block in small chunks, so that previous
  // values come from the memory layer, from the flush in flight and from lmdb, on both threads
  const opts: FlatKVOptions = {
    walDir: join(dir, 'wal'),
    kvPath,
    hashWorkers: 1,
    flushInterval: 2,
    flushChunkRows: 64,
  };
  let fk: FlatKV | undefined;
  try {
    const r = rng(23);
    const storageKeys = Array.from({ length: 1500 }, () => {
      const k = new Uint8Array(53);
      k[0] = 0x03;
      k.set(randomBytes(r, 52, 52), 1);
      return k;
    });
    const addresses = Array.from({ length: 150 }, () => randomBytes(r, 20, 20));
    const accountKey = (prefix: number, a: Uint8Array) => new Uint8Array([prefix, ...a]);
    const kv = new Map<string, Uint8Array>();
    const ever = new Set<string>();
    const roots: string[] = [];
    const models: Map<string, Uint8Array>[] = [];
    const block = (): KVPair[] => {
      const seen = new Set<string>();
      const pairs: KVPair[] = [];
      for (let i = 0; i < 400; i++) {
        const pick = r();
        const key =
          pick < 0.8
            ? storageKeys[Math.floor(r() * storageKeys.length)]
            : accountKey(pick < 0.9 ? 0x0a : 0x08, addresses[Math.floor(r() * addresses.length)]);
        const hex = toHex(key);
        if (seen.has(hex)) continue;
        seen.add(hex);
        ever.add(hex);
        // a fresh copy per block: flatkv must not depend on the caller's arrays being shared
        const own = key.slice();
        if (r() < 0.15) {
          pairs.push({ key: own, value: undefined });
          kv.delete(hex);
        } else {
          // some writes leave the value as it was: such rows must drop out of the lattice
          const value = r() < 0.1 && kv.has(hex) ? kv.get(hex)!.slice() : randomBytes(r, 1, 32);
          pairs.push({ key: own, value });
          kv.set(hex, value);
        }
      }
      return pairs;
    };
    fk = await FlatKV.open(shared(db), opts);
    for (let v = 1; v <= 14; v++) {
      fk.applyPairs(block());
      roots[v] = toHex(await fk.commit(v));
      models[v] = new Map(kv);
      assert.equal(roots[v], referenceRoot(kv), `root of ${v}`);
    }
    assertReads(fk, kv, ever);
    // the log replays into the memory layer; the next blocks read previous values across both
    await fk.close();
    fk = await FlatKV.open(shared(db), opts);
    assert.equal(toHex(fk.committedHash()), roots[14]);
    for (let v = 15; v <= 17; v++) {
      fk.applyPairs(block());
      roots[v] = toHex(await fk.commit(v));
      models[v] = new Map(kv);
      assert.equal(roots[v], referenceRoot(kv), `root of ${v}`);
    }
    await fk.rollback(12);
    assert.equal(toHex(fk.committedHash()), roots[12]);
    assertReads(fk, models[12], ever);
  } finally {
    // closing flatkv also stops its hash workers, which hold read handles on the lmdb environment
    await fk?.close();
    await db.close();
    cleanup();
  }
});
