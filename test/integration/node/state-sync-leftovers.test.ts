/**
 * A node starting with `[statesync] enable = true` and no committed block removes what an unfinished
 * state sync left in its stores before opening them (docs/adr/0017-state-sync-clears-unfinished-attempts.md);
 * a node with a block, or one not state syncing, is never cleared. Real lmdb stores in a temp dir.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ALL_STORES } from '../../../src/app/store-keys.ts';
import { defaultConfig } from '../../../src/config/load.ts';
import type { NodeConfig } from '../../../src/config/schema.ts';
import { Lifecycle } from '../../../src/node/lifecycle.ts';
import { openStores } from '../../../src/node/stores.ts';
import { openBlockStore } from '../../../src/storage/blocks/store.ts';
import { openCommitStore } from '../../../src/storage/sc/commit-store.ts';
import { openStateStore } from '../../../src/storage/ss/index.ts';
import { type LogRecord, memoryLogger, silentLogger } from '../../../src/util/logger.ts';
import { devGenesis } from '../../helpers/dev-chain.ts';
import { tempDir } from '../../helpers/random.ts';

const genesis = devGenesis();
const b = (...xs: number[]) => Uint8Array.from(xs);

function config(o: { stateSync: boolean; split: boolean }): NodeConfig {
  const cfg = defaultConfig();
  cfg.config.statesync.enable = o.stateSync;
  cfg.app.stateStore.evmSsSplit = o.split;
  cfg.app.stateStore.ssAsyncWriteBuffer = 0;
  return cfg;
}

/** A split State Store with versions 1–3 in both halves. */
async function populatedStateStore(dataDir: string): Promise<void> {
  const ss = await openStateStore(
    { dataDir, evmSplit: true, asyncWriteBuffer: 0, sync: false },
    silentLogger,
  );
  for (let v = 1; v <= 3; v++)
    await ss.applyChangeSet(v, [
      { store: 'bank', key: b(1), value: b(v) },
      { store: 'evm', key: b(3, 1), value: b(v) },
    ]);
  await ss.close();
}

/** State Commit as a crash in the middle of a state-sync import leaves it: the IMPORTING marker. */
async function interruptedImport(dataDir: string): Promise<void> {
  const sc = await openCommitStore({
    dir: join(dataDir, 'state_commit'),
    stores: ALL_STORES,
    stateCommitment: genesis.app_state.evm.params.state_commitment,
  });
  const failing = (async function* () {
    yield* [];
    throw new Error('killed mid-import');
  })();
  await assert.rejects(sc.import(5, failing), /killed mid-import/);
  await sc.close();
  assert.ok(existsSync(join(dataDir, 'state_commit', 'IMPORTING')));
}

async function open(dataDir: string, cfg: NodeConfig, records: LogRecord[] = []) {
  const lc = new Lifecycle(silentLogger);
  try {
    const stores = await openStores(lc, {
      dataDir,
      config: cfg,
      genesis,
      logger: memoryLogger(records),
      clearStateSyncLeftovers: true,
    });
    return { stores, lc };
  } catch (err) {
    await lc.stop();
    throw err;
  }
}

test('a state-syncing node without blocks clears an interrupted import and a populated EVM State Store before opening them', async () => {
  const dir = tempDir('leftovers-');
  try {
    await populatedStateStore(dir.path);
    await interruptedImport(dir.path);
    const records: LogRecord[] = [];
    const { stores, lc } = await open(dir.path, config({ stateSync: true, split: true }), records);
    try {
      const removed = records.filter((r) => r.msg.startsWith('stale '));
      assert.deepEqual(
        removed.map((r) => [r.level, r.fields.store, r.fields.dir]),
        [
          ['warn', 'State Commit', join(dir.path, 'state_commit')],
          ['warn', 'Cosmos state store', join(dir.path, 'pebbledb')],
          ['warn', 'EVM state store', join(dir.path, 'evm_ss')],
        ],
      );
      assert.equal(
        removed[2].msg,
        'stale EVM state store removed before state syncing: [statesync] enable = true and no block is committed',
      );
      assert.deepEqual([...(removed[2].fields.entries as string[])].sort(), ['changelog', 'evm']);
      // removed before the State Store opened it: its startup events come after
      const firstSsEvent = records.findIndex((r) => r.msg === 'ChainDB SS is enabled');
      assert.ok(records.indexOf(removed[2]) < firstSsEvent);
      assert.equal(stores.sc.version, 0);
      assert.equal(stores.ss.latestVersion(), 0);
    } finally {
      await lc.stop();
    }
  } finally {
    dir.remove();
  }
});

test('without state sync the interrupted import is refused, naming the remedy, and nothing is removed', async () => {
  const dir = tempDir('leftovers-');
  try {
    await populatedStateStore(dir.path);
    await interruptedImport(dir.path);
    await assert.rejects(
      open(dir.path, config({ stateSync: false, split: true })),
      /did not finish; start the node with \[statesync\] enable = true to state sync again/,
    );
    assert.ok(existsSync(join(dir.path, 'state_commit', 'IMPORTING')));
    assert.deepEqual(readdirSync(join(dir.path, 'evm_ss')).sort(), ['changelog', 'evm']);
  } finally {
    dir.remove();
  }
});

test('a node with a committed block (here a restore mark) is never cleared, even with state sync enabled', async () => {
  const dir = tempDir('leftovers-');
  try {
    await populatedStateStore(dir.path);
    const blocks = await openBlockStore({ dataDir: dir.path });
    await blocks.startAfter(2);
    await blocks.close();
    const records: LogRecord[] = [];
    const { stores, lc } = await open(dir.path, config({ stateSync: true, split: true }), records);
    try {
      assert.deepEqual(
        records.filter((r) => r.msg.startsWith('stale ')),
        [],
      );
      assert.equal(stores.ss.latestVersion(), 3);
    } finally {
      await lc.stop();
    }
  } finally {
    dir.remove();
  }
});

test('with the split off the EVM State Store directory is not the node`s to clear', async () => {
  const dir = tempDir('leftovers-');
  try {
    await populatedStateStore(dir.path);
    const records: LogRecord[] = [];
    const { lc } = await open(dir.path, config({ stateSync: true, split: false }), records);
    await lc.stop();
    assert.deepEqual(
      records.filter((r) => r.msg.startsWith('stale ')).map((r) => r.fields.store),
      ['Cosmos state store'],
    );
    assert.deepEqual(readdirSync(join(dir.path, 'evm_ss')).sort(), ['changelog', 'evm']);
  } finally {
    dir.remove();
  }
});
