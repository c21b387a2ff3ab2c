/** Behaviour of one State Store beyond the model test: pruning's footprint, automatic pruning,
 * import, ordering errors, the async writer's failure path and the directory lock. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import type { KVOp, KVStore } from '../../../../src/storage/kv/types.ts';
import {
  openStateStore,
  SSVersionOrderError,
  SSVersionTooHighError,
  SSWriterFailedError,
  type StateStoreOptions,
  type StoreChange,
} from '../../../../src/storage/ss/index.ts';
import { LockHeldError } from '../../../../src/util/errors.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { tempDir } from './helpers.ts';

const b = (...bytes: number[]) => Uint8Array.from(bytes);

function options(dataDir: string, extra: Partial<StateStoreOptions> = {}): StateStoreOptions {
  return { dataDir, asyncWriteBuffer: 0, keepRecent: 0, sync: false, ...extra };
}

/** Raw data entries (any store) in a database, counted through its engine. */
async function rawCount(kv: KVStore): Promise<number> {
  let n = 0;
  for await (const _ of kv.iterate({ gte: b(0x73), lt: b(0x74) })) n++;
  return n;
}

test('pruning keeps only what reads at or above the prune height can see', async () => {
  const dir = tempDir('ss-store-');
  const engines: MemoryKVStore[] = [];
  const opts = options(dir.path, {
    openEngine: async () => {
      const kv = new MemoryKVStore();
      engines.push(kv);
      return kv;
    },
  });
  const ss = await openStateStore(opts, silentLogger);
  try {
    for (let v = 1; v <= 10; v++) {
      const changes: StoreChange[] = [{ store: 'bank', key: b(1), value: b(v) }];
      if (v <= 6) changes.push({ store: 'bank', key: b(2), value: v === 6 ? null : b(v) }); // deleted at 6
      if (v === 3) changes.push({ store: 'bank', key: b(3), value: b(3) }); // written once, long ago
      await ss.applyChangeSet(v, changes);
    }
    assert.equal(await rawCount(engines[0]), 10 + 6 + 1);
    await ss.prune(7);
    assert.equal(ss.earliestVersion(), 7);
    // key 1: versions 7..10 remain; key 2: its tombstone at 6 and everything older are gone;
    // key 3: its only version (3) is the newest at or below 7, so it stays.
    assert.equal(await rawCount(engines[0]), 4 + 0 + 1);
    assert.deepEqual(await ss.get('bank', b(1), 7), b(7));
    assert.equal(await ss.get('bank', b(2), 8), undefined);
    assert.deepEqual(await ss.get('bank', b(3), 10), b(3));
    assert.equal(await ss.get('bank', b(1), 6), undefined, 'below earliest reads are absent');
    await ss.prune(5); // lower than earliest: nothing to do
    assert.equal(ss.earliestVersion(), 7);
    await ss.prune(50); // above latest: clamped
    assert.equal(ss.earliestVersion(), 10);
    assert.deepEqual(await ss.get('bank', b(3), 10), b(3));
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('automatic pruning every ss-prune-interval keeps ss-keep-recent versions', async () => {
  const dir = tempDir('ss-store-');
  const ss = await openStateStore(
    options(dir.path, { keepRecent: 3, pruneIntervalSeconds: 1 }),
    silentLogger,
  );
  try {
    for (let v = 1; v <= 10; v++) await ss.applyChangeSet(v, [{ store: 'acc', key: b(v), value: b(v) }]);
    assert.equal(ss.earliestVersion(), 1);
    const deadline = Date.now() + 5000;
    while (ss.earliestVersion() === 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(ss.earliestVersion(), 7);
    assert.deepEqual(
      await ss.get('acc', b(2), 7),
      b(2),
      'the newest version at or below the prune height stays',
    );
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('import loads a snapshot at one height into both halves of the split', async () => {
  const dir = tempDir('ss-store-');
  const opts = options(dir.path, { evmSplit: true, evmSeparateDbs: true, asyncWriteBuffer: 3 });
  let ss = await openStateStore(opts, silentLogger);
  try {
    async function* snapshot() {
      for (let i = 0; i < 25_000; i++)
        yield {
          store: i % 2 ? 'evm' : 'bank',
          key: b(i % 5 === 0 ? 0x0a : 0x03, i >> 8, i & 0xff),
          value: b(i & 0xff),
        };
    }
    await ss.applyChangeSet(150, [{ store: 'evm', key: b(0x0a, 0, 5), value: b(0xee) }]); // journaled, then superseded
    await ss.import(200, snapshot());
    assert.equal(ss.latestVersion(), 200);
    assert.equal(ss.earliestVersion(), 200);
    assert.deepEqual(await ss.get('evm', b(0x0a, 0, 5), 200), b(5));
    const bankKey = b(0x03, 24998 >> 8, 24998 & 0xff);
    assert.equal(await ss.get('evm', bankKey, 200), undefined, 'bank keys stay out of the EVM SS');
    assert.deepEqual(await ss.get('bank', bankKey, 200), b(24998 & 0xff));
    assert.equal(await ss.get('evm', b(0x0a, 0, 5), 199), undefined);
    await assert.rejects(ss.import(200, []), SSVersionOrderError);
    await ss.applyChangeSet(201, [{ store: 'evm', key: b(0x0a, 0, 5), value: null }]);
    assert.equal(await ss.has('evm', b(0x0a, 0, 5), 201), false);
    assert.equal(await ss.has('evm', b(0x0a, 0, 5), 200), true);
    // Reopen: the pre-import journal record (version 150) must not come back.
    await ss.close();
    ss = await openStateStore(opts, silentLogger);
    assert.equal(ss.latestVersion(), 201);
    assert.equal(ss.earliestVersion(), 200);
    assert.equal(await ss.has('evm', b(0x0a, 0, 5), 201), false);
    assert.deepEqual(await ss.get('evm', b(0x0a, 0, 5), 200), b(5));
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('versions must increase; reads above latest are a typed error', async () => {
  const dir = tempDir('ss-store-');
  const ss = await openStateStore(options(dir.path), silentLogger);
  try {
    await ss.applyChangeSet(5, [{ store: 'acc', key: b(1), value: b(1) }]);
    await assert.rejects(ss.applyChangeSet(5, []), SSVersionOrderError);
    await assert.rejects(ss.applyChangeSet(4, []), /not above the state store's latest version 5/);
    const err = await ss.get('acc', b(1), 6).catch((e: unknown) => e);
    assert.ok(err instanceof SSVersionTooHighError);
    assert.equal(err.code, 'SS_VERSION_TOO_HIGH');
    assert.throws(() => ss.iterator('acc', undefined, undefined, 6), SSVersionTooHighError);
    await assert.rejects(ss.get('acc', b(1), -1), RangeError);
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('a failing background writer surfaces a typed error and stops accepting writes', async () => {
  const dir = tempDir('ss-store-');
  let failWrites = false;
  const ss = await openStateStore(
    options(dir.path, {
      asyncWriteBuffer: 2,
      openEngine: async () => {
        const kv = new MemoryKVStore();
        const write = kv.write.bind(kv);
        kv.write = async (ops: KVOp[]) => {
          if (failWrites) throw new Error('disk full');
          return write(ops);
        };
        return kv;
      },
    }),
    silentLogger,
  );
  await ss.applyChangeSet(1, [{ store: 'acc', key: b(1), value: b(1) }]);
  await ss.flush();
  failWrites = true;
  await ss.applyChangeSet(2, [{ store: 'acc', key: b(1), value: b(2) }]); // journaled, then the apply fails
  const err = await ss.flush().catch((e: unknown) => e);
  assert.ok(err instanceof SSWriterFailedError, String(err));
  assert.match(err.message, /disk full/);
  await assert.rejects(ss.applyChangeSet(3, []), SSWriterFailedError);
  await ss.close();
  dir.remove();
});

test('a second store on the same data directory is refused by the directory lock', async () => {
  const dir = tempDir('ss-store-');
  const ss = await openStateStore(options(dir.path), silentLogger);
  try {
    const err = await openStateStore(options(dir.path), silentLogger).catch((e: unknown) => e);
    assert.ok(err instanceof LockHeldError, String(err));
    assert.ok(err.message.includes(join(dir.path, 'pebbledb', 'LOCK')));
    assert.match(err.message, /failed to initialize database: resource temporarily unavailable/);
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('async writes: a backlog is group-committed, and the buffer bounds how far writers run ahead', async () => {
  const dir = tempDir('ss-store-');
  let engineWrites = 0;
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const ss = await openStateStore(
    options(dir.path, {
      asyncWriteBuffer: 4,
      openEngine: async () => {
        const kv = new MemoryKVStore();
        const write = kv.write.bind(kv);
        kv.write = async (ops: KVOp[]) => {
          engineWrites++;
          if (gate) await gate; // hold the background writer to build a backlog
          return write(ops);
        };
        return kv;
      },
    }),
    silentLogger,
  );
  try {
    gate = new Promise((r) => (release = r));
    await ss.applyChangeSet(1, [{ store: 'acc', key: b(1), value: b(1) }]); // the writer takes it and blocks
    for (let v = 2; v <= 4; v++) await ss.applyChangeSet(v, [{ store: 'acc', key: b(1), value: b(v) }]);
    // Four change sets are queued (one of them being written): the fifth caller waits.
    let fifthDone = false;
    const fifth = ss
      .applyChangeSet(5, [{ store: 'acc', key: b(1), value: b(5) }])
      .then(() => (fifthDone = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(fifthDone, false, 'back-pressure: a full buffer holds the caller');
    const writesBefore = engineWrites;
    gate = undefined;
    release!();
    await fifth;
    await ss.applyChangeSet(6, [{ store: 'acc', key: b(1), value: b(6) }]);
    await ss.flush();
    assert.equal(ss.latestVersion(), 6);
    assert.ok(
      engineWrites - writesBefore <= 2,
      `versions 2-6 took ${engineWrites - writesBefore} transactions`,
    );
    for (let v = 1; v <= 6; v++) assert.deepEqual(await ss.get('acc', b(1), v), b(v));
  } finally {
    await ss.close();
    dir.remove();
  }
});

test('sync writes: un-awaited change sets land in order, and a failed write stops later ones', async () => {
  const dir = tempDir('ss-store-');
  let failWrites = false;
  const ss = await openStateStore(
    options(dir.path, {
      openEngine: async () => {
        const kv = new MemoryKVStore();
        const write = kv.write.bind(kv);
        kv.write = async (ops: KVOp[]) => {
          await new Promise((r) => setTimeout(r, Math.random() * 3)); // uneven engine latency
          if (failWrites) throw new Error('I/O error');
          return write(ops);
        };
        return kv;
      },
    }),
    silentLogger,
  );
  try {
    const writes = [];
    for (let v = 1; v <= 20; v++)
      writes.push(ss.applyChangeSet(v, [{ store: 'acc', key: b(1), value: b(v) }]));
    // A read of an accepted version issued while its write is still running waits for it.
    assert.deepEqual(await ss.get('acc', b(1), 20), b(20));
    await Promise.all(writes);
    assert.equal(ss.latestVersion(), 20);
    for (let v = 1; v <= 20; v++) assert.deepEqual(await ss.get('acc', b(1), v), b(v));
    failWrites = true;
    await assert.rejects(ss.applyChangeSet(21, []), /I\/O error/);
    failWrites = false;
    await assert.rejects(ss.applyChangeSet(22, []), SSWriterFailedError);
  } finally {
    await ss.close().catch(() => {});
    dir.remove();
  }
});
