/**
 * The split layout through the factory the node calls: startup refusals a, b, c (in order, with the
 * directory and the remedy in the message), the fresh-node case, the three log events, the typed
 * iteration error, recovery of a coordinated prune killed half-way, and turning the split off.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import {
  openStateStore,
  SSBackendRefusedError,
  SSIterationDisabledError,
  SSStartupRefusedError,
  type StateStoreOptions,
} from '../../../../src/storage/ss/index.ts';
import { MvccDatabase } from '../../../../src/storage/ss/mvcc.ts';
import { ChainError } from '../../../../src/util/errors.ts';
import { memoryLogger, silentLogger, type LogRecord } from '../../../../src/util/logger.ts';
import { tempDir } from './helpers.ts';

const b = (...bytes: number[]) => Uint8Array.from(bytes);
const NONCE_KEY = b(0x0a, 1, 2, 3);
const SLOT_KEY = b(0x03, 1, 2, 3, 0, 0);

function options(dataDir: string, extra: Partial<StateStoreOptions> = {}): StateStoreOptions {
  return { dataDir, asyncWriteBuffer: 0, keepRecent: 0, sync: false, ...extra };
}

async function writeBlocks(opts: StateStoreOptions, from: number, to: number): Promise<void> {
  const ss = await openStateStore(opts, silentLogger);
  try {
    for (let v = from; v <= to; v++) {
      await ss.applyChangeSet(v, [
        { store: 'bank', key: b(1), value: b(v) },
        { store: 'evm', key: NONCE_KEY, value: b(v) },
        { store: 'evm', key: SLOT_KEY, value: b(v, v) },
      ]);
    }
  } finally {
    await ss.close();
  }
}

async function refusal(opts: StateStoreOptions): Promise<SSStartupRefusedError> {
  const err = await openStateStore(opts, silentLogger).then(
    async (ss) => {
      await ss.close();
      return assert.fail('startup should have been refused');
    },
    (e: unknown) => e,
  );
  assert.ok(err instanceof SSStartupRefusedError, `expected SSStartupRefusedError, got ${String(err)}`);
  assert.ok(err instanceof ChainError);
  assert.equal(err.code, 'SS_STARTUP_REFUSED');
  assert.match(
    err.message,
    /\. Complete a state sync into the split layout \(.*docs\/operators\/evm-ss-split-migration\.md\), or set evm-ss-split = false in app\.toml \[state-store\] and restart\.$/,
  );
  return err;
}

test('fresh node with the split on: creates the EVM SS and logs the three events with module=ss', async () => {
  const dir = tempDir('ss-startup-');
  try {
    const records: LogRecord[] = [];
    const ss = await openStateStore(
      options(dir.path, { evmSplit: true, evmSeparateDbs: true }),
      memoryLogger(records),
    );
    const evmDir = join(dir.path, 'evm_ss');
    assert.deepEqual(
      records.map((r) => [r.level, r.msg, r.fields]),
      [
        ['info', 'ChainDB SS is enabled', { module: 'ss', backend: 'pebbledb' }],
        ['info', 'ChainDB EVM StateStore optimization is enabled', { module: 'ss', separateDBs: true }],
        ['info', 'EVM state store enabled', { module: 'ss', dir: evmDir, separateDBs: true }],
      ],
    );
    for (const name of ['nonce', 'codehash', 'code', 'storage', 'legacy'])
      assert.ok(existsSync(join(evmDir, name, 'db')));
    assert.ok(existsSync(join(dir.path, 'pebbledb', 'db')));
    await ss.applyChangeSet(1, [{ store: 'evm', key: NONCE_KEY, value: b(7) }]);
    assert.deepEqual(await ss.get('evm', NONCE_KEY, 1), b(7));
    await ss.close();
  } finally {
    dir.remove();
  }
});

test('without the split only "ChainDB SS is enabled" is logged, with the configured backend', async () => {
  const dir = tempDir('ss-startup-');
  try {
    const records: LogRecord[] = [];
    const ss = await openStateStore(options(dir.path, { backend: 'rocksdb' }), memoryLogger(records));
    await ss.close();
    assert.deepEqual(
      records.map((r) => [r.msg, r.fields]),
      [['ChainDB SS is enabled', { module: 'ss', backend: 'rocksdb' }]],
    );
    assert.ok(existsSync(join(dir.path, 'rocksdb', 'db')));
    assert.ok(!existsSync(join(dir.path, 'evm_ss')));
  } finally {
    dir.remove();
  }
});

test('check a: Cosmos history and no EVM SS directory refuses before creating anything', async () => {
  const dir = tempDir('ss-startup-');
  try {
    await writeBlocks(options(dir.path), 1, 3);
    const evmDir = join(dir.path, 'evm_ss');
    const err = await refusal(options(dir.path, { evmSplit: true }));
    assert.equal(err.check, 'a');
    assert.equal(err.dir, evmDir);
    assert.ok(err.message.includes(evmDir), err.message);
    assert.match(err.message, /missing or empty/);
    assert.ok(!existsSync(evmDir), 'a refused start leaves no EVM SS directory behind');
    // An empty directory is treated like a missing one, and is left as it was.
    mkdirSync(evmDir);
    assert.equal((await refusal(options(dir.path, { evmSplit: true }))).check, 'a');
    // The refused start released its locks: the node still opens without the split.
    await writeBlocks(options(dir.path), 4, 4);
  } finally {
    dir.remove();
  }
});

test('check b: the EVM SS directory exists but its databases hold no version', async () => {
  const dir = tempDir('ss-startup-');
  try {
    await writeBlocks(options(dir.path), 1, 3);
    const evmDir = join(dir.path, 'evm_ss');
    mkdirSync(evmDir);
    writeFileSync(join(evmDir, 'leftover-from-a-failed-sync'), 'x');
    const err = await refusal(options(dir.path, { evmSplit: true, evmSeparateDbs: true }));
    assert.equal(err.check, 'b');
    assert.ok(err.message.includes(evmDir), err.message);
    assert.match(err.message, /hold no version/);
  } finally {
    dir.remove();
  }
});

test('check c: earliest versions differ after recovery (halves pruned independently)', async () => {
  const dir = tempDir('ss-startup-');
  try {
    const split = options(dir.path, { evmSplit: true });
    await writeBlocks(split, 1, 10);
    // Prune the Cosmos SS alone (split off), so the two halves no longer agree.
    const alone = await openStateStore(options(dir.path), silentLogger);
    await alone.prune(6);
    await alone.close();
    const err = await refusal(split);
    assert.equal(err.check, 'c');
    assert.ok(err.message.includes(join(dir.path, 'evm_ss')), err.message);
    assert.match(err.message, /\(6, in .*\) differs from the EVM state store's \(1, in /);
  } finally {
    dir.remove();
  }
});

test('a coordinated prune killed after raising only the Cosmos earliest is completed, not refused', async () => {
  const dir = tempDir('ss-startup-');
  try {
    const split = options(dir.path, { evmSplit: true, evmSeparateDbs: true });
    await writeBlocks(split, 1, 10);
    // What a kill right after the Cosmos half of beginPrune leaves on disk.
    const cosmos = await MvccDatabase.open(join(dir.path, 'pebbledb'), openLmdbStore, { sync: false });
    await cosmos.setPruneState(7, 7);
    await cosmos.close();
    const ss = await openStateStore(split, silentLogger);
    try {
      assert.equal(ss.earliestVersion(), 7);
      assert.equal(await ss.get('evm', NONCE_KEY, 6), undefined);
      assert.deepEqual(await ss.get('evm', NONCE_KEY, 7), b(7));
      assert.deepEqual(await ss.get('bank', b(1), 8), b(8));
    } finally {
      await ss.close();
    }
  } finally {
    dir.remove();
  }
});

test('the EVM SS is point-query only: iteration throws a typed error, get/has work', async () => {
  const dir = tempDir('ss-startup-');
  try {
    const ss = await openStateStore(options(dir.path, { evmSplit: true }), silentLogger);
    try {
      await ss.applyChangeSet(1, [{ store: 'evm', key: SLOT_KEY, value: b(9) }]);
      assert.equal(await ss.has('evm', SLOT_KEY, 1), true);
      const err = (() => {
        try {
          ss.iterator('evm', undefined, undefined, 1);
        } catch (e) {
          return e;
        }
      })();
      assert.ok(err instanceof SSIterationDisabledError);
      assert.equal(err.code, 'SS_EVM_ITERATION_DISABLED');
      assert.match(err.message, /iteration is disabled on the EVM state store/);
      // Other stores still iterate.
      for await (const _ of ss.iterator('bank', undefined, undefined, 1)) assert.fail('bank is empty');
    } finally {
      await ss.close();
    }
  } finally {
    dir.remove();
  }
});

test('split on, then off: the EVM SS stays on disk and EVM reads go to the Cosmos SS, which lacks EVM writes made while split', async () => {
  const dir = tempDir('ss-startup-');
  try {
    // The state sync the spec requires before turning the split on is modelled by an import.
    const split = options(dir.path, { evmSplit: true });
    const synced = await openStateStore(split, silentLogger);
    await synced.import(5, [
      { store: 'bank', key: b(1), value: b(5) },
      { store: 'evm', key: NONCE_KEY, value: b(5) },
    ]);
    assert.equal(synced.earliestVersion(), 5);
    assert.equal(synced.latestVersion(), 5);
    await synced.applyChangeSet(6, [{ store: 'evm', key: NONCE_KEY, value: b(6) }]);
    assert.deepEqual(await synced.get('evm', NONCE_KEY, 6), b(6));
    await synced.close();
    const unsplit = await openStateStore(options(dir.path), silentLogger);
    try {
      assert.equal(await unsplit.get('evm', NONCE_KEY, 6), undefined, 'the Cosmos SS never saw EVM writes');
      assert.deepEqual(await unsplit.get('bank', b(1), 6), b(5));
      assert.ok(existsSync(join(dir.path, 'evm_ss')), 'the EVM SS stays on disk');
    } finally {
      await unsplit.close();
    }
  } finally {
    dir.remove();
  }
});

test('a State Store behind State Commit is refused after recovery, naming ss-backend; one that reaches it opens', async () => {
  const dir = tempDir('ss-startup-');
  try {
    await writeBlocks(options(dir.path), 1, 3);
    const err = await openStateStore(options(dir.path, { committedVersion: 5 }), silentLogger).then(
      async (ss) => {
        await ss.close();
        return assert.fail('startup should have been refused');
      },
      (e: unknown) => e,
    );
    assert.ok(err instanceof SSBackendRefusedError, `expected SSBackendRefusedError, got ${String(err)}`);
    const cosmosDir = join(dir.path, 'pebbledb');
    assert.equal(
      err.message,
      `refusing to start with ss-backend = "pebbledb": State Commit holds version 5 but the pebbledb ` +
        `state store in ${cosmosDir} holds versions only up to 3; historical queries served from it would ` +
        `be wrong. Put back ${cosmosDir} from a backup of this data directory, state sync this node ` +
        'into the pebbledb backend (docs/operators/evm-ss-split-migration.md), or start from an empty ' +
        'data directory.',
    );
    // the refusal released the locks; the store reaches State Commit's version 3
    const ss = await openStateStore(options(dir.path, { committedVersion: 3 }), silentLogger);
    assert.equal(ss.latestVersion(), 3);
    await ss.close();
  } finally {
    dir.remove();
  }
});
