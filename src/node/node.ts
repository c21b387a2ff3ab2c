/**
 * The composition root: builds every module from the loaded configuration and genesis, in
 * dependency order, and runs them under one Lifecycle. Nothing imports this file but the CLI.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import { ALL_STORES } from '../app/store-keys.ts';
import { readBaseFee } from '../chain/block-execution.ts';
import { Chain } from '../chain/chain.ts';
import type { NodeConfig } from '../config/schema.ts';
import { type EngineHealth, haltedEngine, type SyncStatus } from '../chain/sync-status.ts';
import { BlockProducer } from '../producer/producer.ts';
import { SignerState } from '../producer/signer-state.ts';
import { ed25519FromJson, ed25519Address } from '../crypto/node-keys.ts';
import { createChainCommon } from '../execution/chain-config.ts';
import { Mempool } from '../mempool/mempool.ts';
import { CosmosPool } from '../mempool/cosmos-pool.ts';
import { parseMinGasPrice } from '../app/cosmos-deliver.ts';
import { BankReader } from '../app/bank.ts';
import { EvmReader } from '../app/evm.ts';
import { toHex } from '../primitives/bytes.ts';
import { openBlockStore, type BlockStore } from '../storage/blocks/store.ts';
import { type CommitStore, openCommitStore } from '../storage/sc/commit-store.ts';
import { openStateStore, type StateStore } from '../storage/ss/index.ts';
import { LatestOnlyStateStore } from './latest-state-store.ts';
import { acquireDirLock, type DirLock } from '../util/dir-lock.ts';
import { ChainError } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { fitConnectionCaps, openFileLimit } from './descriptors.ts';
import { Lifecycle, type Service } from './lifecycle.ts';
import { Registry } from 'prom-client';
import { EvmRpc } from './rpc-filter-adapters.ts';
import type { JsonRpcHttpServer } from '../rpc/server/http.ts';
import type { JsonRpcWsServer } from '../rpc/server/ws.ts';
import { consensusDepsOf, grpcService, operationalServices, restApiService } from './operational-services.ts';
import { answerAbciQuery } from '../rpc/consensus/abci-query.ts';
import { resolveCometBinary } from '../cometbft/binary.ts';
import { CometEngine } from '../cometbft/engine.ts';
import { rollbackCometTo } from '../cometbft/rollback.ts';
import { mempoolErrorOf } from '../mempool/check-tx.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { keccak_256 } from '@noble/hashes/sha3.js';

export interface NodeOptions {
  home: string;
  config: NodeConfig;
  genesis: Genesis;
  logger: Logger;
}

export function dataDirOf(home: string, config: NodeConfig): string {
  const dir = config.config.dbDir;
  return isAbsolute(dir) ? dir : resolve(home, dir);
}

export class ChainNode {
  readonly dataDir: string;
  private opts: NodeOptions;
  private readonly log: Logger;
  private readonly lifecycle: Lifecycle;
  /** The State Store, or with `ss-enable = false` State Commit's latest state (latest-state-store.ts). */
  ss: StateStore | undefined;
  sc: CommitStore | undefined;
  blocks: BlockStore | undefined;
  chain: Chain | undefined;
  mempool: Mempool | undefined;
  cosmosPool: CosmosPool | undefined;
  producer: BlockProducer | undefined;
  /** Network mode's engine (CometBFT and the ABCI++ application), when `[consensus] engine = "cometbft"`. */
  cometEngine: CometEngine | undefined;
  /** Whether the engine advances the chain: every health signal reads it through `syncStatus`. */
  private health: EngineHealth | undefined;
  /** The EVM JSON-RPC HTTP server, when `[evm] http_enabled`. */
  rpc: JsonRpcHttpServer | undefined;
  /** The EVM JSON-RPC WebSocket server, when `[evm] ws_enabled`. */
  ws: JsonRpcWsServer | undefined;
  private evmRpc: EvmRpc | undefined;
  /** The node's metrics (serve it with operationalServices); the RPC dispatcher records here. */
  readonly metricsRegistry = new Registry();

  constructor(opts: NodeOptions) {
    this.opts = opts;
    this.dataDir = dataDirOf(opts.home, opts.config);
    this.log = opts.logger.child({ module: 'node' });
    this.lifecycle = new Lifecycle(this.log);
    this.metricsRegistry.setDefaultLabels({ chain_id: opts.genesis.chain_id });
  }

  async start(): Promise<void> {
    // what every listener may open must leave descriptors for the stores and block production
    this.opts = { ...this.opts, config: fitConnectionCaps(this.opts.config, openFileLimit(), this.log) };
    const { genesis, config } = this.opts;
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
    await this.lifecycle.start([
      this.dataLock(),
      ...this.stateStores(),
      this.blockStore(),
      this.chainService(),
      this.mempoolService(),
      this.producerService(),
      this.rpcService(),
      this.wsService(),
      ...operationalServices(this.opts, this, this.metricsRegistry),
      restApiService(this.opts, this),
      grpcService(this.opts, this),
    ]);
    this.log.info({ data_dir: this.dataDir, height: this.chain!.latestHeight }, 'node started');
  }

  /**
   * `chaind rollback`: with the node stopped (the data lock proves it), rewinds State Commit, the State
   * Store and the block store by `blocks` to one height, and rewinds the validator's signing state to
   * it so the node can produce from there (the operator accepts the double-sign risk: see README).
   * Order SC → SS → block store keeps "block store ≥ SS ≥ SC" at every step; if interrupted, the next
   * start replays back up, and the rollback can simply be run again.
   */
  async rollback(blocks: number): Promise<{ height: number; appHash: Uint8Array }> {
    const lifecycle = new Lifecycle(this.log);
    await lifecycle.start([
      this.dataLock(),
      ...this.stateStores(),
      this.blockStore(),
      this.chainService({ replay: false }),
    ]);
    try {
      const chain = this.chain!;
      const target = chain.latestHeight - blocks;
      if (!Number.isInteger(blocks) || blocks < 0 || target < 0) {
        throw new ChainError(
          'BAD_ARGUMENT',
          `cannot roll back ${blocks} blocks: the latest height is ${chain.latestHeight}`,
        );
      }
      const network = this.opts.config.config.consensus.engine === 'cometbft';
      // resolved first: a rollback that cannot finish CometBFT's side changes nothing
      const binary = network
        ? resolveCometBinary(this.opts.config.config.consensus.cometbftBinary, this.opts.home)
        : undefined;
      const appHash = await chain.rollbackTo(target);
      if (binary) {
        // CometBFT to the same height; the validator's signing state stays (cometbft/rollback.ts)
        if (blocks > 0) rollbackCometTo(binary, join(this.opts.home, 'cometbft'), target);
      } else {
        new SignerState(join(this.dataDir, 'priv_validator_state.json')).reset({
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

  /** The engine's view of progress (consensus/health.ts), once block production has started. */
  syncStatus(): SyncStatus {
    if (!this.health) throw new ChainError('NOT_STARTED', 'the node has not started its engine yet');
    return this.health.syncStatus();
  }

  async stop(timeoutMs?: number): Promise<boolean> {
    this.log.info('stopping node');
    const clean = await this.lifecycle.stop(timeoutMs);
    this.log.info({ clean }, 'node stopped');
    return clean;
  }

  /** One node per home: the lock on the data directory is taken before any database opens. */
  private dataLock(): Service {
    let lock: DirLock | undefined;
    return {
      name: 'data-lock',
      start: async () => {
        lock = acquireDirLock(this.dataDir);
      },
      stop: async () => lock?.release(),
    };
  }

  /**
   * State Store and State Commit. With `ss-enable = false` there is no State Store database: reads
   * of state come from State Commit (latest-state-store.ts), and history answers an error.
   */
  private stateStores(): Service[] {
    if (this.opts.config.app.stateStore.ssEnable) return [this.commitStore(), this.stateStore()];
    const latestOnly: Service = {
      name: 'state-store',
      start: async () => {
        this.log.info('state store disabled (ss-enable = false): serving the latest state only, no history');
        this.ss = new LatestOnlyStateStore(this.sc!);
      },
      stop: async () => {},
    };
    return [this.commitStore(), latestOnly];
  }

  private stateStore(): Service {
    const ss = this.opts.config.app.stateStore;
    return {
      name: 'state-store',
      start: async () => {
        this.ss = await openStateStore(
          {
            dataDir: this.dataDir,
            backend: ss.ssBackend,
            asyncWriteBuffer: ss.ssAsyncWriteBuffer,
            keepRecent: ss.ssKeepRecent,
            pruneIntervalSeconds: ss.ssPruneInterval,
            evmSplit: ss.evmSsSplit,
            evmSeparateDbs: ss.evmSsSeparateDbs,
            evmDbDirectory: ss.evmSsDbDirectory || undefined,
            // opened after State Commit, whose history the State Store must hold (a changed
            // ss-backend or a lost directory is refused rather than served as empty history)
            committedVersion: this.sc!.version,
          },
          this.opts.logger,
        );
      },
      stop: async () => this.ss?.close(),
    };
  }

  private commitStore(): Service {
    const sc = this.opts.config.app.stateCommit;
    return {
      name: 'state-commit',
      start: async () => {
        this.sc = await openCommitStore({
          dir: join(this.dataDir, 'state_commit'),
          stores: ALL_STORES,
          stateCommitment: this.opts.genesis.app_state.evm.params.state_commitment,
          asyncCommitBuffer: sc.scAsyncCommitBuffer,
          snapshotInterval: sc.scSnapshotInterval,
          keepRecent: sc.scKeepRecent,
          logger: this.opts.logger,
        });
      },
      stop: async () => this.sc?.close(),
    };
  }

  private blockStore(): Service {
    return {
      name: 'block-store',
      start: async () => {
        this.blocks = await openBlockStore({ dataDir: this.dataDir });
      },
      stop: async () => this.blocks?.close(),
    };
  }

  /** `replay: false` (rollback): the chain opens at the block store's height without replaying. */
  private chainService(o: { replay: boolean } = { replay: true }): Service {
    return {
      name: 'chain',
      start: async () => {
        const common = createChainCommon({
          chainId: BigInt(this.opts.genesis.app_state.evm.params.chain_id),
        });
        this.chain = new Chain({
          genesis: this.opts.genesis,
          common,
          sc: this.sc!,
          ss: this.ss!,
          blocks: this.blocks!,
          logger: this.opts.logger,
        });
        if (o.replay) await this.chain.open();
        else await this.chain.openForRollback();
      },
      stop: async () => {},
    };
  }

  private mempoolService(): Service {
    const m = this.opts.config.config.mempool;
    return {
      name: 'mempool',
      start: async () => {
        const chain = this.chain!;
        const evm = new EvmReader(chain.state);
        const bank = new BankReader(chain.state);
        this.mempool = new Mempool({
          options: {
            size: m.size,
            cacheSize: m.cacheSize,
            keepInvalidTxsInCache: m.keepInvalidTxsInCache,
            ttlDurationMs: m.ttlDuration,
            ttlNumBlocks: m.ttlNumBlocks,
          },
          params: {
            chainId: BigInt(this.opts.genesis.app_state.evm.params.chain_id),
            blockGasLimit: chain.gasLimit,
            baseFee: () => readBaseFee(chain.state, chain.feeParams),
            maxTxBytes: Number(this.opts.genesis.consensus_params.block.max_bytes),
          },
          accounts: {
            nonce: async (a) => evm.nonce(a),
            balance: async (a) => bank.wei(evm.balanceAddressOf(a)),
          },
          decode: chain.decode,
          height: chain.latestHeight,
        });
        this.cosmosPool = new CosmosPool({
          options: this.mempool.options,
          ctx: { chainId: this.opts.genesis.chain_id, maxBlockGas: chain.gasLimit },
          minGasPrice: parseMinGasPrice(this.opts.config.app.minimumGasPrices),
          state: () => chain.state,
          maxTxBytes: Number(this.opts.genesis.consensus_params.block.max_bytes),
          height: chain.latestHeight,
        });
      },
      stop: async () => {},
    };
  }

  /** Network mode: CometBFT decides blocks; this node is its ABCI++ application. */
  private cometService(): Service {
    const cfg = this.opts.config.config;
    return {
      name: 'cometbft',
      start: async () => {
        const binary = resolveCometBinary(cfg.consensus.cometbftBinary, this.opts.home);
        const engine = new CometEngine({
          home: this.opts.home,
          dataDir: this.dataDir,
          binary,
          chain: this.chain!,
          pools: { mempool: this.mempool!, cosmosPool: this.cosmosPool! },
          genesis: this.opts.genesis,
          version: JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
          query: async (req) => {
            const a = await answerAbciQuery(consensusDepsOf(this.opts, this), {
              path: req.path,
              data: req.data,
              height: Number(req.height),
              prove: req.prove,
            });
            return {
              code: a.code,
              log: a.log,
              info: '',
              index: 0n,
              key: new Uint8Array(0),
              value: a.value ?? new Uint8Array(0),
              height: BigInt(a.height),
              codespace: a.codespace,
            };
          },
          settings: {
            moniker: cfg.moniker,
            logLevel: cfg.logLevel,
            metricsNamespace: cfg.instrumentation.namespace,
            p2p: {
              laddr: cfg.p2p.laddr,
              externalAddress: cfg.p2p.externalAddress,
              persistentPeers: cfg.p2p.persistentPeers,
              pex: cfg.p2p.pex,
              maxPacketMsgPayloadSize: cfg.p2p.maxPacketMsgPayloadSize,
              addrBookStrict: cfg.p2p.addrBookStrict,
              allowDuplicateIp: cfg.p2p.allowDuplicateIp,
            },
            mempool: {
              size: cfg.mempool.size,
              cacheSize: cfg.mempool.cacheSize,
              keepInvalidTxsInCache: cfg.mempool.keepInvalidTxsInCache,
              maxTxBytes: Number(this.opts.genesis.consensus_params.block.max_bytes),
            },
            consensus: {
              timeoutCommitMs: cfg.consensus.timeoutCommit,
              timeoutProposeMs: cfg.consensus.timeoutPropose,
              createEmptyBlocks: cfg.consensus.createEmptyBlocks,
              createEmptyBlocksIntervalMs: cfg.consensus.createEmptyBlocksInterval,
            },
            statesync: {
              enable: cfg.statesync.enable,
              rpcServers: cfg.statesync.rpcServers,
              trustHeight: cfg.statesync.trustHeight,
              trustHash: cfg.statesync.trustHash,
              trustPeriodMs: cfg.statesync.trustPeriod,
            },
          },
          logger: this.opts.logger,
          onFatal: (reason) => this.onFatal?.(reason),
        });
        this.cometEngine = engine;
        this.health = engine.health;
        await engine.start();
      },
      stop: async () => this.cometEngine?.stop(),
    };
  }

  /** The engine cannot go on (network mode: CometBFT exited); the CLI stops the node with this reason. */
  onFatal: ((reason: string) => void) | undefined;

  /** eth_sendRawTransaction in network mode: through CometBFT, answered with the admitting pool's error. */
  private async submitThroughEngine(raw: Uint8Array): Promise<Uint8Array> {
    const r = await this.cometEngine!.submit(wrapEthTransaction(raw));
    if (r.code !== 0) throw mempoolErrorOf(r);
    return keccak_256(raw);
  }

  private producerService(): Service {
    if (this.opts.config.config.consensus.engine === 'cometbft') return this.cometService();
    const c = this.opts.config.config.consensus;
    return {
      name: 'block-producer',
      start: async () => {
        const key = ed25519FromJson(
          JSON.parse(readFileSync(join(this.opts.home, 'config', 'priv_validator_key.json'), 'utf8')),
          'priv_validator_key.json',
        );
        const address = toHex(ed25519Address(key.publicKey)).toUpperCase();
        const validator = this.opts.genesis.validators.find((v) => v.address === address);
        if (!validator) {
          // Nothing can advance this node's chain (it has no peers to follow): every health signal says so.
          const reason = `this node (validator address ${address}) is not the genesis validator and has no peers: it produces no blocks and follows none`;
          this.health = haltedEngine(() => this.chain!.latestHeight, reason);
          this.log.error({ address }, 'this node is not the genesis validator: not producing blocks');
          return;
        }
        this.producer = new BlockProducer({
          chain: this.chain!,
          mempool: this.mempool!,
          cosmosPool: this.cosmosPool!,
          chainId: this.opts.genesis.chain_id,
          validatorKey: key,
          votingPower: BigInt(validator.power),
          signer: SignerState.open(
            join(this.dataDir, 'priv_validator_state.json'),
            this.chain!.latestHeight === 0,
          ),
          timeoutCommitMs: c.timeoutCommit,
          createEmptyBlocks: c.createEmptyBlocks,
          createEmptyBlocksIntervalMs: c.createEmptyBlocksInterval,
          logger: this.opts.logger,
        });
        this.health = this.producer.health;
        this.producer.start();
      },
      stop: async () => this.producer?.stop(),
    };
  }

  private rpcService(): Service {
    return {
      name: 'evm-rpc',
      start: async () => {
        const evm = this.opts.config.app.evm;
        if (!evm.httpEnabled && !evm.wsEnabled) return;
        // One dispatcher and one filter store for HTTP and WebSocket.
        this.evmRpc = new EvmRpc({
          chain: this.chain!,
          blocks: this.blocks!,
          ss: this.ss!,
          sc: this.sc!,
          mempool: this.mempool!,
          cosmosPool: this.cosmosPool!,
          genesis: this.opts.genesis,
          feeParams: this.chain!.feeParams,
          evm,
          logger: this.opts.logger,
          registry: this.metricsRegistry,
          sync: () => this.syncStatus(),
          ...(this.cometEngine ? { submitTx: (raw: Uint8Array) => this.submitThroughEngine(raw) } : {}),
        });
        if (!evm.httpEnabled) return;
        this.rpc = this.evmRpc.http();
        await this.rpc.start();
      },
      stop: async () => {
        await this.rpc?.stop();
        this.evmRpc?.close();
      },
    };
  }

  private wsService(): Service {
    return {
      name: 'evm-ws',
      start: async () => {
        if (!this.opts.config.app.evm.wsEnabled) return;
        this.ws = this.evmRpc!.ws();
        await this.ws.start();
      },
      stop: async () => this.ws?.stop(),
    };
  }
}
