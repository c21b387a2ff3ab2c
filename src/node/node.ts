/**
 * The composition root: builds every module from the loaded configuration and genesis, in
 * dependency order, each from the ones before it, and runs them under one Lifecycle. Nothing imports
 * this file but the CLI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { encodeStateDump } from '../app/dev-state-dump.ts';
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { TxSubmission } from '../chain/engine.ts';
import type { SyncStatus } from '../chain/sync-status.ts';
import { resolveCometBinary } from '../cometbft/binary.ts';
import { rollbackCometTo } from '../cometbft/rollback.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { toHex } from '../primitives/bytes.ts';
import { SignerState } from '../producer/signer-state.ts';
import type { ConsensusRpcServer } from '../rpc/consensus/server.ts';
import type { DevNode } from '../rpc/dev/index.ts';
import type { GrpcServer } from '../rpc/grpc/server.ts';
import type { RestServer } from '../rpc/rest/server.ts';
import type { JsonRpcHttpServer } from '../rpc/server/http.ts';
import type { JsonRpcWsServer } from '../rpc/server/ws.ts';
import { ChainError } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { consensusQueries } from './adapters/consensus-rpc.ts';
import { devNode } from './adapters/dev-node.ts';
import { clientVersion } from './adapters/evm-chain-reader.ts';
import { openConsensusServices } from './consensus-services.ts';
import { fitConnectionCaps, openFileLimit } from './descriptors.ts';
import { EmbeddedEngine, untilMinedBy } from './embedded-engine.ts';
import { chainSyncStatus, type NodeEngine, openEngine } from './engine.ts';
import { openEvmListeners } from './evm-listeners.ts';
import { Lifecycle } from './lifecycle.ts';
import { createMempools } from './mempools.ts';
import type { MetricsServer } from './metrics-server.ts';
import { dataDirOf, type DevChainOptions, type NodeOptions, type NodeSetup } from './node-options.ts';
import type { RpcReaders } from './rpc-readers.ts';
import { refuseUnsupportedConfig } from './start-checks.ts';
import { openChain, openStores, type Stores } from './stores.ts';
import { chooseBlockEngine, REVM_HOWTO } from '../execution/block-engine.ts';

export { dataDirOf, type NodeOptions };

/** What a started node runs, in the order it was built. A listener its config disables is absent. */
export interface NodeModules extends Stores {
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  engine: NodeEngine;
  /** Where every RPC submits transactions: chosen with the engine. */
  submission: TxSubmission;
  /** The EVM JSON-RPC over HTTP (`[evm] http_enabled`) and WebSocket (`[evm] ws_enabled`). */
  evmHttp: JsonRpcHttpServer | undefined;
  /** The reader threads serving the HTTP port beside the main thread (`[evm] http_reader_threads`). */
  rpcReaders: RpcReaders | undefined;
  evmWs: JsonRpcWsServer | undefined;
  consensusRpc: ConsensusRpcServer;
  metrics: MetricsServer | undefined;
  rest: RestServer | undefined;
  grpc: GrpcServer | undefined;
}

/**
 * A dev chain's `--load-state` (the accounts set once it has started) and `--dump-state` (its state
 * written first thing when it stops, while every store is still open).
 */
async function openDevState(lc: Lifecycle, o: DevChainOptions, dev: DevNode, log: Logger): Promise<void> {
  if (o.loadState) {
    await dev.state.load(o.loadState);
    log.info({ accounts: o.loadState.accounts.length }, 'dev state loaded');
  }
  const path = o.dumpStateTo;
  if (path)
    await lc.open(
      'dev state dump',
      async () => dev,
      async (d) => {
        const dump = await d.state.dump();
        writeFileSync(path, encodeStateDump(dump) + '\n');
        log.info({ path, accounts: dump.accounts.length, height: dump.height }, 'dev state dumped');
      },
    );
}

export class ChainNode {
  readonly dataDir: string;
  private readonly opts: NodeOptions;
  private readonly log: Logger;
  private readonly lifecycle: Lifecycle;
  private started: NodeModules | undefined;
  /** The node's metrics: the dispatcher and every module record here (consensus-services.ts). */
  readonly metricsRegistry = new Registry();

  constructor(opts: NodeOptions) {
    this.opts = opts;
    this.dataDir = dataDirOf(opts.home, opts.config);
    this.log = opts.logger.child({ module: 'node' });
    this.lifecycle = new Lifecycle(this.log);
    this.metricsRegistry.setDefaultLabels({ chain_id: opts.genesis.chain_id });
  }

  /** The genesis this node runs (its chain ids). */
  get genesis(): Genesis {
    return this.opts.genesis;
  }

  /** The running modules; throws before `start` has finished. */
  get modules(): NodeModules {
    if (!this.started) throw new ChainError('NOT_STARTED', 'the node has not started yet');
    return this.started;
  }

  async start(): Promise<void> {
    const o: NodeSetup = {
      ...this.opts,
      dataDir: this.dataDir,
      // what every listener may open must leave descriptors for the stores and block production
      config: fitConnectionCaps(this.opts.config, openFileLimit(), this.log),
    };
    const { genesis, config, logger } = o;
    this.log.info(
      { home: o.home, chain_id: genesis.chain_id, moniker: config.config.moniker },
      'starting node',
    );
    refuseUnsupportedConfig(o);
    const blocks = chooseBlockEngine(config.app.evm.blockEngine);
    this.log.info(
      blocks.name === 'revm'
        ? { engine: 'revm' }
        : { engine: 'ethereumjs', reason: blocks.reason, revm: REVM_HOWTO },
      'block execution engine',
    );
    const lc = this.lifecycle;
    const stores = await openStores(lc, {
      dataDir: o.dataDir,
      config,
      genesis,
      logger,
      clearStateSyncLeftovers: true,
      durable: !o.dev?.ephemeral,
      fork: o.dev?.fork,
      devRewinds: o.dev !== undefined,
    });
    const chain = await lc.open('chain', () => openChain(o, stores, true));
    const { mempool, cosmosPool } = await lc.open('mempool', async () => createMempools(o, chain));
    // abci_query's, and in network mode CometBFT's ABCI Query's, answers come from these
    const queries = consensusQueries(chain, genesis.chain_id);
    const { engine, submission, sync, upstream } = await openEngine(
      lc,
      o,
      { chain, mempool, cosmosPool },
      {
        queries,
        onFatal: (reason) => {
          // a full disk stops the chain, not the node: it stays up to say so on every health signal
          if (chain.diskFull)
            this.log.error({ reason }, 'consensus engine stopped; the node stays up, halted');
          else this.onFatal?.(reason);
        },
      },
    );
    const producer = o.dev && engine instanceof EmbeddedEngine ? engine.producer : undefined;
    const dev =
      producer &&
      devNode({
        producer,
        chain,
        mempool,
        cosmosPool,
        fork: stores.fork,
        untilMined: untilMinedBy(chain, () => producer.mining.automine),
        accounts: o.dev?.accounts ?? [],
        clientVersion: clientVersion(),
      });
    const evm = await openEvmListeners(lc, o, this.metricsRegistry, {
      chain,
      ss: stores.ss,
      sc: stores.sc,
      mempool,
      cosmosPool,
      submission,
      sync,
      forked: stores.fork !== undefined,
      ...(producer && { dev, now: () => producer.clock.nowMs() }),
    });
    // the consensus RPC, REST and gRPC read through the same adapters
    const services = await openConsensusServices(lc, o, this.metricsRegistry, {
      chain,
      blocks: stores.blocks,
      mempool,
      cosmosPool,
      submission,
      sync,
      queries,
      upstream,
      threadMetrics: evm.readers && (() => evm.readers!.metrics()),
    });
    this.started = {
      ...stores,
      chain,
      mempool,
      cosmosPool,
      engine,
      submission,
      evmHttp: evm.http,
      rpcReaders: evm.readers,
      evmWs: evm.ws,
      ...services,
    };
    if (dev) await openDevState(lc, o.dev!, dev, this.log);
    this.log.info({ data_dir: this.dataDir, height: chain.latestHeight }, 'node started');
  }

  /**
   * `chaind rollback`: with the node stopped (the data lock proves it), rewinds State Commit, the State
   * Store and the block store by `blocks` to one height, and rewinds the validator's signing state to
   * it so the node can produce from there (the operator accepts the double-sign risk: see
   * docs/operators/rollback.md).
   * Order SC → SS → block store keeps "block store ≥ SS ≥ SC" at every step; if interrupted, the next
   * start replays back up, and the rollback can simply be run again.
   */
  async rollback(blocks: number): Promise<{ height: number; appHash: Uint8Array }> {
    const lifecycle = new Lifecycle(this.log);
    const stores = await openStores(lifecycle, { ...this.opts, dataDir: this.dataDir });
    try {
      // the replay of a start stops at an app-hash mismatch, which is what a rollback is for
      const chain = await lifecycle.open('chain', () => openChain(this.opts, stores, false));
      const target = chain.latestHeight - blocks;
      if (!Number.isInteger(blocks) || blocks < 0 || target < 0) {
        throw new ChainError(
          'BAD_ARGUMENT',
          `cannot roll back ${blocks} blocks: the latest height is ${chain.latestHeight}`,
        );
      }
      const consensus = this.opts.config.config.consensus;
      // resolved first: a rollback that cannot finish CometBFT's side changes nothing
      const cometbft =
        consensus.engine === 'cometbft'
          ? resolveCometBinary(consensus.cometbftBinary, this.opts.home)
          : undefined;
      const appHash = await chain.rollbackTo(target);
      if (cometbft) {
        // CometBFT to the same height; the validator's signing state stays (cometbft/rollback.ts)
        if (blocks > 0) rollbackCometTo(cometbft, join(this.opts.home, 'cometbft'), target);
      } else {
        await new SignerState(join(this.dataDir, 'priv_validator_state.json')).reset({
          height: target,
          round: 0,
          step: 0,
        });
      }
      this.log.info({ height: target, app_hash: toHex(appHash).toUpperCase() }, 'rolled back');
      return { height: target, appHash };
    } finally {
      await lifecycle.stop();
    }
  }

  /** The engine cannot go on (network mode: CometBFT exited); the CLI stops the node with this reason. */
  onFatal: ((reason: string) => void) | undefined;

  /** The engine's view of progress (chain/sync-status.ts), once the engine is built. */
  syncStatus(): SyncStatus {
    if (!this.started) throw new ChainError('NOT_STARTED', 'the node has not started its engine yet');
    return chainSyncStatus(this.started.chain, this.started.engine);
  }

  private stopRequested = false;

  /** stop() has been called: listeners are closing, and what they served may be gone. */
  get stopping(): boolean {
    return this.stopRequested;
  }

  async stop(timeoutMs?: number): Promise<boolean> {
    this.stopRequested = true;
    this.log.info('stopping node');
    const clean = await this.lifecycle.stop(timeoutMs);
    this.log.info({ clean }, 'node stopped');
    return clean;
  }
}
