/**
 * The EVM JSON-RPC (`[evm]`): one ChainReader with its caches, one Tracing (so
 * max_concurrent_trace_calls counts debug_trace*, trace_* and chain_trace* together), one filter store and one
 * dispatcher for the HTTP and WebSocket transports; the HTTP dispatcher adds the deprecated
 * chain_/chain2_ surface (HTTP-only), whose synthetic views keep a filter table of their own.
 */
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { PendingBlocks } from '../chain/pending-block.ts';
import type { TxSubmission } from '../chain/engine.ts';
import type { SyncStatus } from '../chain/sync-status.ts';
import type { AppToml } from '../config/schema.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { parseTraceOptions } from '../rpc/evm/debug-options.ts';
import {
  type ChainEvents,
  type EvmBackend,
  evmMethods,
  type FilterOptions,
  FilterStore,
  InclusionWaits,
  SubscriptionHub,
  subscriptionMethods,
  Tracing,
  whyEvmMethodNotServed,
} from '../rpc/evm/index.ts';
import { devMethods, type DevNode, whyDevMethodNotServed } from '../rpc/dev/index.ts';
import type { LegacyBackend } from '../rpc/legacy/index.ts';
import { Dispatcher } from '../rpc/server/dispatcher.ts';
import { JsonRpcHttpServer } from '../rpc/server/http.ts';
import { quotaMemory } from '../rpc/server/quota.ts';
import { JsonRpcWsServer } from '../rpc/server/ws.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { StateStore } from '../storage/ss/types.ts';
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import type { Registry } from 'prom-client';
import { clientVersion, NodeChainReader } from './adapters/evm-chain-reader.ts';
import { NodeProofs } from './adapters/evm-proofs.ts';
import { NodeSimulation } from './adapters/evm-simulation.ts';
import { NodeParityTracer } from './adapters/evm-parity-tracer.ts';
import { nativeSimulator } from '../execution/simulation/native-binding.ts';
import { blockWork } from '../util/block-first.ts';
import { NodeTracer } from './adapters/evm-tracer.ts';
import { evmTxPool } from './adapters/evm-tx-pool.ts';
import { legacyBackend, legacyHttpDispatcher, webSocketDispatcher } from './adapters/legacy-backend.ts';
import { evmHttpLimits } from './evm-http-limits.ts';
import { type AdmissionShared, evmAdmission, servedNamespaces } from './evm-admission.ts';
import {
  blockTracer,
  createSyntheticLegacy,
  type SyntheticLegacy,
} from './adapters/legacy-synthetic-backend.ts';

export interface EvmRpcOptions {
  evm: AppToml['evm'];
  genesis: Genesis;
  logger: Logger;
  /** The dispatcher records per-method RPC metrics here. */
  registry: Registry;
  /**
   * The JWT secret and the quota buckets every thread serving the EVM JSON-RPC shares (absent: no
   * JWT, and buckets of this EvmRpc's own).
   */
  admission?: AdmissionShared;
}

export interface EvmRpcModules {
  chain: Chain;
  ss: StateStore;
  /** For eth_getProof. */
  sc: CommitStore;
  mempool: Mempool;
  submission: TxSubmission;
  /** The engine's health, for eth_syncing. */
  sync: () => SyncStatus;
  /** The pending block that `pending` state reads and simulations run over. */
  pending?: PendingBlocks;
  /** A dev chain: its methods are served over this (anvil's and Hardhat's names). */
  dev?: DevNode;
}

/** No listen-address key exists yet: local only, like geth's default --http.addr. */
export const EVM_RPC_HOST = '127.0.0.1';

/** Calls of one heavy kind that may wait for their turn, per call allowed to run; more are refused as busy. */
const HEAVY_CALLS_WAITING = 16;

export class EvmRpc {
  readonly filters: FilterStore;
  /** eth_sendRawTransactionSync's waits for committed blocks. */
  readonly waits: InclusionWaits;
  readonly dispatcher: Dispatcher;
  /** debug_trace* and chain_trace* with the `[evm]` trace limits. */
  readonly tracing: Tracing;
  private readonly o: EvmRpcOptions;
  private readonly backend: EvmBackend;
  private readonly events: ChainEvents;
  private readonly synthetic: SyntheticLegacy;
  private readonly legacy: LegacyBackend;
  private hub: SubscriptionHub | undefined;
  private readonly admission: AdmissionShared;

  constructor(o: EvmRpcOptions, m: EvmRpcModules) {
    this.o = o;
    this.admission = o.admission ?? { quota: quotaMemory() };
    const { evm } = o;
    const { chain, mempool } = m;
    const blocks = chain.blocks;
    this.events = {
      onBlock: (listener) => chain.onBlock(({ block }) => listener(block.header.height)),
      onPendingTx: (listener) => mempool.onPending(listener),
      onRewind: (listener) => chain.onRewind(listener),
    };
    const filterLimits: Omit<FilterOptions, 'timeoutMs'> = {
      maxFilters: evm.maxFilters,
      maxPendingHashes: evm.maxPendingFilterHashes,
      maxCriteria: evm.maxLogCriteria,
    };
    this.waits = new InclusionWaits(this.events);
    this.filters = new FilterStore(this.events, { timeoutMs: evm.filterTimeout, ...filterLimits });
    const reader = new NodeChainReader({
      chain,
      blocks,
      ss: m.ss,
      genesis: o.genesis,
      pending: m.pending,
    });
    this.backend = {
      chain: reader,
      pool: evmTxPool(mempool, m.submission),
      options: {
        clientVersion: clientVersion(),
        maxBlocksForLog: evm.maxBlocksForLog,
        maxLogNoBlock: evm.maxLogNoBlock,
        maxResponseBytes: evm.maxResponseBytes,
      },
      sync: m.sync,
    };
    const log = o.logger.child({ module: 'rpc' });
    const native = evm.nativeSimulator ? nativeSimulator() : 'off ([evm] native_simulator = false)';
    blockWork.enabled = evm.rpcYieldsToBlocks;
    if (typeof native === 'string') log.info({ engine: 'js', native }, 'eth_call engine');
    else log.info({ engine: 'native (revm)', fallback: 'js' }, 'eth_call engine');
    // eth_call's gas cap and deadline apply to debug_traceCall's simulation too
    const simulation = new NodeSimulation(
      {
        gasCap: BigInt(evm.simulationGasLimit),
        timeoutMs: evm.simulationEvmTimeout,
        ...(typeof native === 'string' ? {} : { native }),
      },
      { chain, reader, pending: m.pending },
    );
    const nodeTracer = new NodeTracer({
      chain,
      ss: m.ss,
      simulation,
      maxTraceBytes: evm.maxTraceResponseBytes,
    });
    const tracing = (this.tracing = new Tracing(nodeTracer, reader, {
      timeoutMs: evm.traceTimeout,
      maxConcurrent: evm.maxConcurrentTraceCalls,
      maxLookback: evm.maxTraceLookbackBlocks,
    }));
    const methods = evmMethods(this.backend, {
      filters: this.filters,
      simulation,
      proofs: new NodeProofs(m.sc),
      tracing,
      parity: {
        backend: new NodeParityTracer(nodeTracer, simulation, evm.maxTraceResponseBytes),
        maxFilterBlocks: evm.maxTraceFilterBlocks,
      },
      waits: this.waits,
    });
    // a dev chain's own answers (eth_accounts, web3_clientVersion) take the place of the eth_ ones
    const served = m.dev ? { ...methods, ...devMethods(m.dev, this.backend, simulation) } : methods;
    this.dispatcher = new Dispatcher(served, {
      whyNotServed: (name) =>
        whyEvmMethodNotServed(name) ?? (m.dev ? undefined : whyDevMethodNotServed(name)),
      denyList: evm.denyList,
      disabledNamespaces: evm.disabledNamespaces,
      maxResponseBytes: evm.maxResponseBytes,
      concurrency: [
        {
          methods: [
            'eth_getLogs',
            'eth_getFilterLogs',
            'chain_getLogs',
            'chain_getFilterLogs',
            'chain2_getLogs',
            'chain2_getFilterLogs',
          ],
          max: evm.maxConcurrentLogQueries,
          maxWaiting: HEAVY_CALLS_WAITING * evm.maxConcurrentLogQueries,
          key: '[evm] max_concurrent_log_queries',
        },
        {
          methods: ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1'],
          max: evm.maxConcurrentSimulations,
          maxWaiting: HEAVY_CALLS_WAITING * evm.maxConcurrentSimulations,
          key: '[evm] max_concurrent_simulations',
        },
      ],
      registry: o.registry,
      onInternalError: (err, method) =>
        log.error(
          { method, err: err instanceof Error ? (err.stack ?? err.message) : String(err) },
          'JSON-RPC method failed',
        ),
    });
    this.legacy = legacyBackend({ chain, blocks, submission: m.submission });
    this.synthetic = createSyntheticLegacy({
      chain,
      blocks,
      reader,
      options: this.backend.options,
      pool: this.backend.pool,
      events: this.events,
      filterTimeoutMs: evm.filterTimeout,
      filterLimits,
      tracer: blockTracer(tracing, (v) => parseTraceOptions(v)),
    });
  }

  private httpDispatcherOnce: Dispatcher | undefined;

  /**
   * The dispatcher of `[evm] http_port`: the shared one plus the legacy surface, serving the
   * namespaces of `[evm] http_api`.
   */
  get httpDispatcher(): Dispatcher {
    const { evm } = this.o;
    return (this.httpDispatcherOnce ??= legacyHttpDispatcher(
      this.dispatcher,
      this.legacy,
      this.backend,
      evm.enabledLegacyChainApis,
      this.synthetic.methods,
    ).extend({}, { servedNamespaces: servedNamespaces(evm, 'http') }));
  }

  /**
   * The HTTP server on `[evm] http_port`. `shared`: with RPC reader threads, it shares the port
   * (reusePort) and counts its connections where they count theirs.
   */
  http(shared?: { connectionCount: Int32Array }): JsonRpcHttpServer {
    const { evm } = this.o;
    return new JsonRpcHttpServer(this.httpDispatcher, {
      sharePort: shared && 'open',
      connectionCount: shared?.connectionCount,
      host: EVM_RPC_HOST,
      port: evm.httpPort,
      ...evmHttpLimits(evm),
      admission: evmAdmission(evm, this.admission, 'http', this.o.registry),
      logger: this.o.logger.child({ module: 'rpc' }),
    });
  }

  /** The WebSocket server on `[evm] ws_port`, with eth_subscribe. */
  ws(): JsonRpcWsServer {
    const log = this.o.logger.child({ module: 'rpc' });
    const { evm } = this.o;
    const hub = (this.hub ??= new SubscriptionHub(
      this.backend,
      this.events,
      (err) => log.error({ err: errorMessage(err) }, 'subscription notification failed'),
      {
        maxSubscriptions: evm.maxSubscriptions,
        maxPerConnection: evm.maxSubscriptionsPerConnection,
        maxCriteria: evm.maxLogCriteria,
      },
    ));
    const dispatcher = webSocketDispatcher(this.dispatcher).extend(
      {},
      { servedNamespaces: servedNamespaces(evm, 'ws') },
    );
    return new JsonRpcWsServer(dispatcher, {
      // Local only, like the HTTP server (and geth's default --ws.addr).
      host: '127.0.0.1',
      port: evm.wsPort,
      maxMessageBytes: evm.maxRequestBodyBytes,
      batchLimit: evm.batchRequestLimit,
      maxJsonDepth: evm.maxJsonDepth,
      maxConnections: evm.wsMaxConnections,
      maxBufferedBytes: evm.maxBufferedAnswerBytes,
      maxInFlight: evm.wsMaxRequestsInFlight,
      handshakeTimeoutMs: evm.readHeaderTimeout,
      pingIntervalMs: evm.wsPingInterval,
      admission: evmAdmission(evm, this.admission, 'ws', this.o.registry),
      logger: log,
      connectionMethods: (notify) => subscriptionMethods(hub, this.backend, notify),
    });
  }

  /** Ends the calls waiting for a block (the node is stopping), so none holds its connection open. */
  endWaits(): void {
    this.waits.close();
  }

  close(): void {
    this.waits.close();
    this.hub?.close();
    this.filters.close();
    this.synthetic.close();
  }
}
