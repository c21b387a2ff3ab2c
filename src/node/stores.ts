/**
 * The stores and the chain over them, opened under the node's Lifecycle in the order their checks
 * need: the data lock before any database, the block store (whether it holds a block decides if a
 * state-syncing node may clear what an earlier attempt left), State Commit before the State Store
 * (which must hold SC's history), then the chain, which replays what the block store has and SC lacks.
 */
import { join } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import { ALL_STORES } from '../app/store-keys.ts';
import { Chain } from '../chain/chain.ts';
import type { NodeConfig } from '../config/schema.ts';
import { createChainCommon } from '../execution/chain-config.ts';
import { type Fork, type ForkRequest, openFork } from '../fork/fork.ts';
import { forkStores } from '../fork/forked-state.ts';
import { type BlockStore, openBlockStore } from '../storage/blocks/store.ts';
import { type CommitStore, openCommitStore } from '../storage/sc/commit-store.ts';
import { openStateStore, type StateStore, type StateStoreOptions } from '../storage/ss/index.ts';
import { acquireDirLock } from '../util/dir-lock.ts';
import type { Logger } from '../util/logger.ts';
import { LatestOnlyStateStore } from './latest-state-store.ts';
import { removeStateSyncLeftovers, startsWithStateSync } from './state-sync-leftovers.ts';
import type { Lifecycle } from './lifecycle.ts';

export interface StoreOptions {
  dataDir: string;
  config: NodeConfig;
  genesis: Genesis;
  logger: Logger;
  /**
   * `chaind start`: a node starting with `[statesync] enable = true` and no committed block first
   * removes what an unfinished earlier attempt left in its stores (state-sync-leftovers.ts).
   */
  clearStateSyncLeftovers?: boolean;
  /** false: no store fsyncs (a throwaway home, removed on exit); default true. */
  durable?: boolean;
  /**
   * `chaind dev --fork-url`: a new chain forks this remote. A home whose chain is a fork stays one
   * without it (its record in the data directory says where and at which block).
   */
  fork?: ForkRequest;
  /**
   * A dev chain, whose evm_revert rolls back recent blocks again and again: State Commit keeps more
   * recent versions in memory and the State Store remembers the entries they wrote, so that such a
   * rollback reloads and scans nothing (docs/adr/0029-dev-chain-methods.md).
   */
  devRewinds?: boolean;
}

/**
 * Versions State Commit keeps in memory on a dev chain (how far back a revert is nearly free), as
 * long as the pairs they changed stay within DEV_SC_RETAIN_PAIRS: each keeps about a tree path of
 * nodes alive per pair (~2 KB), so busy blocks keep fewer versions.
 */
export const DEV_SC_RETAIN_VERSIONS = 1024;
export const DEV_SC_RETAIN_PAIRS = 50_000;
/** Entries of recent versions the State Store remembers per database on a dev chain (~150 bytes each). */
export const DEV_SS_RECENT_KEYS = 50_000;

export interface Stores {
  sc: CommitStore;
  /** The State Store, or with `ss-enable = false` State Commit's latest state (latest-state-store.ts). */
  ss: StateStore;
  blocks: BlockStore;
  /** Set when the chain is a fork: `sc` and `ss` then read the remote's state below their own. */
  fork: Fork | undefined;
}

/**
 * The data lock (one node per home, taken before any database opens), then the block store, State
 * Commit and the State Store. With `ss-enable = false` there is no State Store database: reads of
 * state come from State Commit (latest-state-store.ts), and history answers an error.
 */
export async function openStores(lc: Lifecycle, o: StoreOptions): Promise<Stores> {
  const { dataDir, config, genesis, logger } = o;
  const sync = o.durable !== false;
  await lc.open(
    'data-lock',
    async () => acquireDirLock(dataDir),
    async (lock) => lock.release(),
  );
  const blocks = await lc.open(
    'block-store',
    () => openBlockStore({ dataDir, sync }),
    (blocks) => blocks.close(),
  );
  if (o.clearStateSyncLeftovers && startsWithStateSync(config) && blocks.latestHeight() === undefined)
    removeStateSyncLeftovers(dataDir, config, logger);
  // before State Commit opens: a chain that exists and is no fork must not become one
  const fork = await lc.open(
    'fork',
    () => openFork(dataDir, o.fork, logger, sync),
    async (fork) => fork?.close(),
  );
  const scc = config.app.stateCommit;
  const sc = await lc.open(
    'state-commit',
    () =>
      openCommitStore({
        dir: join(dataDir, 'state_commit'),
        stores: ALL_STORES,
        stateCommitment: genesis.app_state.evm.params.state_commitment,
        asyncCommitBuffer: scc.scAsyncCommitBuffer,
        snapshotInterval: scc.scSnapshotInterval,
        keepRecent: scc.scKeepRecent,
        ...(o.devRewinds && { retainVersions: DEV_SC_RETAIN_VERSIONS, retainPairs: DEV_SC_RETAIN_PAIRS }),
        sync,
        logger,
      }),
    (sc) => sc.close(),
  );
  const ssc = config.app.stateStore;
  const ss = await lc.open(
    'state-store',
    async (): Promise<StateStore> => {
      if (!ssc.ssEnable) {
        logger
          .child({ module: 'node' })
          .info('state store disabled (ss-enable = false): serving the latest state only, no history');
        return new LatestOnlyStateStore(sc);
      }
      return openStateStore(
        // a changed ss-backend or a lost directory is refused rather than served as empty history
        { ...stateStoreOptions(dataDir, config), committedVersion: sc.version, sync },
        logger,
      );
    },
    (ss) => ss.close(),
  );
  if (o.devRewinds) ss.keepRecentWrites?.(DEV_SS_RECENT_KEYS);
  if (!fork) return { sc, ss, blocks, fork };
  return { ...forkStores({ sc, ss }, fork.state), blocks, fork };
}

/** The State Store's options from `[state-store]` (also what an RPC reader thread opens it with). */
export function stateStoreOptions(dataDir: string, config: NodeConfig): StateStoreOptions {
  const ssc = config.app.stateStore;
  return {
    dataDir,
    backend: ssc.ssBackend,
    asyncWriteBuffer: ssc.ssAsyncWriteBuffer,
    keepRecent: ssc.ssKeepRecent,
    pruneIntervalSeconds: ssc.ssPruneInterval,
    evmSplit: ssc.evmSsSplit,
    evmSeparateDbs: ssc.evmSsSeparateDbs,
    evmDbDirectory: ssc.evmSsDbDirectory || undefined,
  };
}

/** `replay` false (rollback): the chain opens at the block store's height without replaying. */
export async function openChain(
  o: Pick<StoreOptions, 'genesis' | 'logger'> & { dev?: object },
  stores: Stores,
  replay: boolean,
): Promise<Chain> {
  const { genesis, logger } = o;
  const chain = new Chain({
    genesis,
    common: createChainCommon({ chainId: BigInt(genesis.app_state.evm.params.chain_id) }),
    ...stores,
    logger,
    devRecords: o.dev !== undefined,
  });
  if (replay) await chain.open();
  else await chain.openForRollback();
  return chain;
}
