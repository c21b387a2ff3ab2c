/**
 * The composition root: builds every module from the loaded configuration and genesis, in
 * dependency order, each from the ones before it, and runs them under one Lifecycle. Nothing imports
 * this file but the CLI.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ed25519Address, ed25519FromJson } from '../crypto/node-keys.ts';
import { Registry } from 'prom-client';
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { TxSubmission } from '../chain/engine.ts';
import type { SyncStatus } from '../chain/sync-status.ts';
import { PendingBlocks } from '../chain/pending-block.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { toHex } from '../primitives/bytes.ts';
import { SignerState } from '../producer/signer-state.ts';
import type { ConsensusRpcServer } from '../rpc/consensus/server.ts';
import type { GrpcServer } from '../rpc/grpc/server.ts';
import type { RestServer } from '../rpc/rest/server.ts';
import type { JsonRpcHttpServer } from '../rpc/server/http.ts';
import type { JsonRpcWsServer } from '../rpc/server/ws.ts';
import { ChainError } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { consensusRpcDeps } from './adapters/consensus-rpc.ts';
import {
  APP_VERSION,
  type ServiceOptions,
  startConsensusRpc,
  startGrpc,
  startMetrics,
  startRestApi,
} from './consensus-services.ts';
import { fitConnectionCaps, openFileLimit } from './descriptors.ts';
import { createEngine, type DevChainOptions, NetworkEngine, type NodeEngine } from './engine.ts';
import { abciQuery, networkSettings } from './network-settings.ts';
import { resolveCometBinary } from '../cometbft/binary.ts';
import { rollbackCometTo } from '../cometbft/rollback.ts';
import { engineBlock } from '../cometbft/block-json.ts';
import type { ConsensusRpcDeps } from '../rpc/consensus/types.ts';
import { EVM_RPC_HOST, EvmRpc } from './evm-rpc.ts';
import { readerThreadPlan, RpcReaders } from './rpc-readers.ts';
import { Lifecycle } from './lifecycle.ts';
import { createMempools } from './mempools.ts';
import type { MetricsServer } from './metrics-server.ts';
import { openChain, openStores, stateStoreOptions, type Stores } from './stores.ts';

export interface NodeOptions {
  home: string;
  config: NodeConfig;
  genesis: Genesis;
  logger: Logger;
  /** Set: a local dev chain (`chaind dev`). */
  dev?: DevChainOptions;
}

/**
 * The EVM State Store split is for RPC nodes only: a network node whose validator key is in the
 * validator set refuses to start with it. (The embedded engine of a local dev chain is a validator by
 * construction and may use it to try the layout.)
 */
function refuseSplitOnValidator(home: string, genesis: Genesis): void {
  const path = join(home, 'config', 'priv_validator_key.json');
  const key = ed25519FromJson(JSON.parse(readFileSync(path, 'utf8')), path);
  const address = toHex(ed25519Address(key.publicKey)).toUpperCase();
  if (genesis.validators.some((v) => v.address === address))
    throw new ChainError(
      'CONFIG_INVALID',
      `app.toml: state-store.evm-ss-split = true is supported on RPC nodes only, and this node's validator key (address ${address}, ${path}) is in the validator set; set evm-ss-split = false, or use the split on a node outside the set`,
    );
}

export function dataDirOf(home: string, config: NodeConfig): string {
  const dir = config.config.dbDir;
  return isAbsolute(dir) ? dir : resolve(home, dir);
}

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

export class ChainNode {
  readonly dataDir: string;
  private opts: NodeOptions;
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
    // what every listener may open must leave descriptors for the stores and block production
    this.opts = { ...this.opts, config: fitConnectionCaps(this.opts.config, openFileLimit(), this.log) };
    const { genesis, config, logger } = this.opts;
    this.log.info(
      { home: this.opts.home, chain_id: genesis.chain_id, moniker: config.config.moniker },
      'starting node',
    );
    if (!config.app.stateCommit.scEnable) {
      throw new ChainError(
        'CONFIG_INVALID',
        'app.toml: state-commit.sc-enable = false is not supported: State Commit computes the app hash ' +
          'every block header carries and holds the state blocks execute on, so no node runs without it; set it to true',
      );
    }
    if (config.app.stateStore.evmSsSplit && config.config.consensus.engine === 'cometbft')
      refuseSplitOnValidator(this.opts.home, genesis);
    const lc = this.lifecycle;
    const stores = await openStores(lc, {
      dataDir: this.dataDir,
      config,
      genesis,
      logger,
      clearStateSyncLeftovers: true,
      durable: !this.opts.dev?.ephemeral,
    });
    const chain = await lc.open('chain', () => openChain(this.opts, stores, true));
    const { mempool, cosmosPool } = await lc.open('mempool', async () => createMempools(this.opts, chain));
    // network mode's ABCI Query answers with the consensus RPC's abci_query (built further down)
    let queries: ConsensusRpcDeps | undefined;
    const { engine, submission } = await lc.open(
      'engine',
      async () => {
        const built = createEngine(
          {
            home: this.opts.home,
            dataDir: this.dataDir,
            genesis,
            consensus: config.config.consensus,
            logger,
            dev: this.opts.dev,
            network:
              config.config.consensus.engine === 'cometbft'
                ? networkSettings(
                    this.opts,
                    (q) => abciQuery(queries, q),
                    (reason) => this.onFatal?.(reason),
                  )
                : undefined,
          },
          { chain, mempool, cosmosPool },
        );
        await built.engine.start();
        return built;
      },
      ({ engine }) => engine.stop(),
    );
    const sync = () => engine.health.syncStatus();

    const evm = config.app.evm;
    const evmRpc = await lc.open(
      'evm-rpc',
      async () => {
        if (!evm.httpEnabled && !evm.wsEnabled) return undefined;
        // one dispatcher and one filter store for HTTP and WebSocket
        const rpc = new EvmRpc(
          { evm, genesis, logger, registry: this.metricsRegistry },
          {
            chain,
            ss: stores.ss,
            sc: stores.sc,
            mempool,
            submission,
            sync,
            pending: new PendingBlocks(chain, { mempool, cosmosPool }),
          },
        );
        const plan = readerThreadPlan(config);
        // with reader threads, http_max_connections holds for the port: every thread counts here
        const connectionCount = new Int32Array(new SharedArrayBuffer(4));
        const http = evm.httpEnabled
          ? rpc.http(plan.threads > 0 ? { connectionCount } : undefined)
          : undefined;
        await http?.start();
        let readers: RpcReaders | undefined;
        if (http && plan.threads > 0) {
          readers = new RpcReaders({
            threads: plan.threads,
            dataDir: this.dataDir,
            genesis,
            evm,
            stateStore: stateStoreOptions(this.dataDir, config),
            host: EVM_RPC_HOST,
            port: http.port,
            connectionCount,
            handler: rpc.httpDispatcher,
            chain,
            logger,
          });
          try {
            await readers.start();
          } catch (err) {
            await readers.stop();
            await http.stop();
            throw err;
          }
        }
        this.log.info({ threads: plan.threads, why: plan.reason }, 'EVM JSON-RPC reader threads');
        return { rpc, http, readers };
      },
      async (built) => {
        // the reader threads close their views of the stores before anything else closes
        await built?.readers?.stop();
        await built?.http?.stop();
        built?.rpc.close();
      },
    );
    const evmWs = await lc.open(
      'evm-ws',
      async () => {
        const server = evm.wsEnabled ? evmRpc?.rpc.ws() : undefined;
        await server?.start();
        return server;
      },
      async (server) => server?.stop(),
    );

    const services: ServiceOptions = {
      config,
      chainId: genesis.chain_id,
      maxBlockBytes: Number(genesis.consensus_params.block.max_bytes),
      logger,
    };
    // the consensus RPC, REST and gRPC read through the same adapters
    const { consensus, consensusRpc } = await lc.open(
      'consensus-rpc',
      async () => {
        const consensus = consensusRpcDeps({
          home: this.opts.home,
          dataDir: this.dataDir,
          genesis,
          moniker: config.config.moniker,
          appVersion: APP_VERSION,
          chain,
          blocks: stores.blocks,
          mempool,
          cosmosPool,
          submission,
          logger,
          sync,
        });
        if (engine instanceof NetworkEngine) {
          const rpc = engine.comet.rpc;
          consensus.upstream = {
            get: (q) => rpc.get(q),
            post: (b) => rpc.post(b),
            websocketUrl: `${rpc.url.replace(/^http/, 'ws')}/websocket`,
          };
          // REST's and gRPC's block endpoints answer with CometBFT's block (the stored one is partial)
          consensus.chain.engineBlock = (height) => engineBlock(rpc, height);
        }
        queries = consensus;
        return { consensus, consensusRpc: await startConsensusRpc(services, consensus) };
      },
      ({ consensusRpc }) => consensusRpc.stop(),
    );
    const metrics = await lc.open(
      'metrics',
      () =>
        startMetrics(
          services,
          this.metricsRegistry,
          {
            chain,
            mempool,
            cosmosPool,
            consensus,
            dataDir: this.dataDir,
            threadMetrics: evmRpc?.readers && (() => evmRpc.readers!.metrics()),
          },
          engine instanceof NetworkEngine ? engine.comet.metricsUrl : undefined,
        ),
      async (m) => {
        m?.unsubscribe();
        await m?.server.stop();
      },
    );
    const rpcAddress = () => consensusRpc.url;
    const rest = await lc.open(
      'rest-api',
      () => startRestApi(services, consensus, rpcAddress),
      async (server) => server?.stop(),
    );
    const grpc = await lc.open(
      'grpc',
      () => startGrpc(services, consensus, rpcAddress),
      async (server) => server?.stop(),
    );
    this.started = {
      ...stores,
      chain,
      mempool,
      cosmosPool,
      engine,
      submission,
      evmHttp: evmRpc?.http,
      rpcReaders: evmRpc?.readers,
      evmWs,
      consensusRpc,
      metrics: metrics?.server,
      rest,
      grpc,
    };
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
    return this.started.engine.health.syncStatus();
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
