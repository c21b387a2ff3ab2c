import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../util/logger.ts';
import { openLmdbStore } from '../kv/lmdb.ts';
import { importEngineModule, openRocksStore } from '../kv/rocksdb.ts';
import type { KVOpener } from '../kv/types.ts';
import { Changelog } from './changelog.ts';
import { SSBackendRefusedError, SSStartupRefusedError } from './errors.ts';
import { EVM_SS_DATABASES, evmDatabaseIndex } from './evm-keys.ts';
import { MvccGroup } from './group.ts';
import { MvccDatabase } from './mvcc.ts';
import {
  checkCount,
  cosmosDirName,
  resolveLayout,
  STATE_STORE_DEFAULTS,
  type StateStoreOptions,
} from './options.ts';
import { CompositeStateStore } from './state-store.ts';

/**
 * Opens the node's State Store: the Cosmos SS in `<dataDir>/pebbledb/` (or `rocksdb/`) and, with
 * `evm-ss-split`, the EVM SS in `<dataDir>/evm_ss/`. Order of work (docs/adr/0005-evm-ss-split-refusals.md):
 *
 *   1. log `ChainDB SS is enabled`; when State Commit has history (`committedVersion`), refuse a
 *      missing or empty Cosmos SS directory before anything is created; open the Cosmos SS
 *   2. split: log `ChainDB EVM StateStore optimization is enabled`;
 *      check a — Cosmos history but no EVM SS directory — before anything is created
 *   3. open the EVM SS databases; check b — Cosmos history but an EVM SS database holds no version
 *   4. recovery: replay the changelogs (EVM, then Cosmos); refuse a Cosmos SS still behind State
 *      Commit; finish an interrupted coordinated prune
 *   5. check c — earliest versions of the Cosmos SS and EVM SS differ; log `EVM state store enabled`
 *
 * A refusal closes whatever was opened (releasing the directory locks) before throwing.
 */
export async function openStateStore(
  options: StateStoreOptions,
  logger: Logger,
): Promise<CompositeStateStore> {
  const log = logger.child({ module: 'ss' });
  const layout = resolveLayout(options);
  const backend = options.backend ?? STATE_STORE_DEFAULTS.backend;
  const asyncWriteBuffer = checkCount(
    'ss-async-write-buffer',
    options.asyncWriteBuffer ?? STATE_STORE_DEFAULTS.asyncWriteBuffer,
  );
  const keepRecent = checkCount('ss-keep-recent', options.keepRecent ?? STATE_STORE_DEFAULTS.keepRecent);
  const pruneIntervalSeconds = checkCount(
    'ss-prune-interval',
    options.pruneIntervalSeconds ?? STATE_STORE_DEFAULTS.pruneIntervalSeconds,
  );
  const split = options.evmSplit ?? STATE_STORE_DEFAULTS.evmSplit;
  const separateDBs = options.evmSeparateDbs ?? STATE_STORE_DEFAULTS.evmSeparateDbs;
  const kvOptions = { sync: options.sync !== false };
  // The logs cover the last ss-keep-recent blocks (0: all; docs/adr/0009-keep-recent-semantics.md); records not yet
  // applied to a database stay whatever the setting (Changelog.truncate).
  const logOptions = { keep: keepRecent, sync: options.sync !== false };

  log.info({ backend }, 'ChainDB SS is enabled');
  const committed = options.committedVersion ?? 0;
  if (committed > 0 && isMissingOrEmpty(layout.cosmosDir)) {
    // checked before the engine creates the directory: a rejected backend leaves nothing behind
    throw backendRefused(options, `the ${backend} state store in ${layout.cosmosDir} is missing or empty`);
  }
  let openEngine: KVOpener = options.openEngine ?? openLmdbStore;
  if (!options.openEngine && layout.engine === 'rocksdb') {
    await importEngineModule('rocksdb', 'rocksdb-native'); // a missing package stops here, creating nothing
    openEngine = openRocksStore;
  }

  const opened: { close(): unknown }[] = [];
  const closeAll = async () => {
    for (const o of opened.reverse()) await Promise.resolve(o.close()).catch(() => {});
  };
  try {
    const cosmosDb = await MvccDatabase.open(layout.cosmosDir, openEngine, kvOptions);
    const cosmos = new MvccGroup('Cosmos SS', [cosmosDb], () => 0);
    opened.push(cosmos);
    const cosmosHistory = cosmosDb.latest > 0;

    let evm: MvccGroup | undefined;
    let evmLog: Changelog | undefined;
    if (split) {
      log.info({ separateDBs }, 'ChainDB EVM StateStore optimization is enabled');
      const dir = layout.evmDir;
      if (cosmosHistory && isMissingOrEmpty(dir)) {
        throw new SSStartupRefusedError(
          'a',
          dir,
          `the Cosmos state store in ${layout.cosmosDir} has committed history (latest version ` +
            `${cosmosDb.latest}) but the EVM state store directory ${dir} is missing or empty`,
        );
      }
      evm = await openEvmGroup(dir, separateDBs, openEngine, kvOptions);
      opened.push(evm);
      if (cosmosHistory && evm.anyEmpty) {
        const empty = evm.databases.filter((d) => d.latest === 0).map((d) => d.dir);
        throw new SSStartupRefusedError(
          'b',
          dir,
          `the EVM state store directory ${dir} exists but its database(s) ${empty.join(', ')} hold no version; ` +
            'the changelog covers only recent blocks and cannot rebuild it',
        );
      }
      evmLog = Changelog.open(join(dir, 'changelog'), logOptions);
      opened.push(evmLog);
      for (const record of evmLog.recordsAfter(evm.latest)) await evm.apply(record.version, record.changes);
    }

    let cosmosLog: Changelog | undefined;
    // Opened even with async writes off, when one exists, so records accepted before a restart with a
    // smaller buffer are still replayed; created only for async writes.
    const cosmosLogDir = join(layout.cosmosDir, 'changelog');
    if (asyncWriteBuffer > 0 || existsSync(cosmosLogDir)) {
      cosmosLog = Changelog.open(cosmosLogDir, logOptions);
      opened.push(cosmosLog);
      for (const record of cosmosLog.recordsAfter(cosmosDb.latest))
        await cosmos.apply(record.version, record.changes);
      if (asyncWriteBuffer === 0) {
        cosmosLog.close();
        cosmosLog = undefined;
      }
    }

    // The pipeline writes the State Store before State Commit, so after recovery a store behind SC
    // is not this node's history (another backend's, or a directory put back from elsewhere).
    if (cosmos.latest < committed) {
      throw backendRefused(
        options,
        cosmos.latest === 0
          ? `the ${backend} state store in ${layout.cosmosDir} holds no version`
          : `the ${backend} state store in ${layout.cosmosDir} holds versions only up to ${cosmos.latest}`,
      );
    }

    // A prune killed between raising the earliest version of one half and the other is completed
    // here: it was one coordinated prune, not independent ones (which check c exists to catch).
    const pendingPrune = Math.max(cosmos.pruneTarget, evm?.pruneTarget ?? 0);
    if (pendingPrune > 0) {
      await cosmos.beginPrune(pendingPrune);
      await evm?.beginPrune(pendingPrune);
    }

    if (evm && cosmos.earliest !== evm.earliest) {
      throw new SSStartupRefusedError(
        'c',
        layout.evmDir,
        `after recovery the earliest version of the Cosmos state store (${cosmos.earliest}, in ${layout.cosmosDir}) ` +
          `differs from the EVM state store's (${evm.earliest}, in ${layout.evmDir}): they were filled from ` +
          'different snapshots or pruned independently',
      );
    }

    const store = new CompositeStateStore({
      cosmos,
      evm,
      cosmosLog,
      evmLog,
      asyncWriteBuffer,
      keepRecent,
      pruneIntervalSeconds,
      logger: log,
    });
    if (evm) log.info({ dir: layout.evmDir, separateDBs }, 'EVM state store enabled');
    if (pendingPrune > 0) {
      store.pruneTo(pendingPrune).catch((err) => log.error({ err }, 'resuming interrupted prune failed'));
    }
    return store;
  } catch (err) {
    await closeAll();
    throw err;
  }
}

function isMissingOrEmpty(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * The refusal of a State Store that lacks State Commit's history, with the remedies this node has:
 * the backend that holds the data when there is one; a state sync, which fills the configured
 * backend at the snapshot height; else a fresh start.
 */
function backendRefused(options: StateStoreOptions, problem: string): SSBackendRefusedError {
  const layout = resolveLayout(options);
  const backend = options.backend ?? STATE_STORE_DEFAULTS.backend;
  const other = layout.engine === 'rocksdb' ? 'pebbledb' : 'rocksdb';
  const otherDir = join(options.dataDir, cosmosDirName(layout.engine === 'rocksdb' ? 'lmdb' : 'rocksdb'));
  const stateSync =
    `state sync this node into the ${backend} backend (docs/operators/evm-ss-split-migration.md), ` +
    'or start from an empty data directory';
  const remedy = isMissingOrEmpty(otherDir)
    ? `Put back ${layout.cosmosDir} from a backup of this data directory, ${stateSync}.`
    : `Set ss-backend back to "${other}" (the data is in ${otherDir}), ${stateSync}.`;
  return new SSBackendRefusedError(
    backend,
    layout.cosmosDir,
    `State Commit holds version ${options.committedVersion} but ${problem}; historical queries ` +
      'served from it would be wrong',
    remedy,
  );
}

async function openEvmGroup(
  dir: string,
  separateDBs: boolean,
  openEngine: KVOpener,
  kvOptions: { sync: boolean },
): Promise<MvccGroup> {
  if (!separateDBs) {
    const db = await MvccDatabase.open(join(dir, 'evm'), openEngine, kvOptions);
    return new MvccGroup('EVM SS', [db], () => 0);
  }
  const dbs: MvccDatabase[] = [];
  try {
    for (const name of EVM_SS_DATABASES)
      dbs.push(await MvccDatabase.open(join(dir, name), openEngine, kvOptions));
  } catch (err) {
    for (const db of dbs) await db.close().catch(() => {});
    throw err;
  }
  return new MvccGroup('EVM SS', dbs, (_store, key) => evmDatabaseIndex(key));
}
