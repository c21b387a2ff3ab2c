/**
 * The live side of the EVM JSON-RPC: the node's events (Chain.onBlock, Mempool.onPending) adapted to
 * rpc/'s ChainEvents, the filter store shared by HTTP and WebSocket, the subscription hub, and the
 * WebSocket server on `[evm] ws_port`. One dispatcher (and one NodeChainReader with its caches)
 * serves both transports.
 */
import type { Chain } from '../chain/chain.ts';
import type { Mempool } from '../mempool/mempool.ts';
import {
  type ChainEvents,
  type EvmBackend,
  type FilterOptions,
  FilterStore,
  SubscriptionHub,
  subscriptionMethods,
} from '../rpc/evm/index.ts';
import type { Dispatcher } from '../rpc/server/dispatcher.ts';
import type { JsonRpcHttpServer } from '../rpc/server/http.ts';
import { JsonRpcWsServer } from '../rpc/server/ws.ts';
import { errorMessage } from '../util/errors.ts';
import { createEvmDispatcher, createEvmRpcServer, evmBackend } from './rpc-adapters.ts';
import { legacyHttpDispatcher, type LegacyRpcDeps, webSocketDispatcher } from './rpc-legacy-adapters.ts';
import { blockTracer, createSyntheticLegacy, type SyntheticLegacy } from './rpc-legacy-synthetic-adapters.ts';
import { traceServices } from './rpc-debug-adapters.ts';
import { parseTraceOptions } from '../rpc/evm/debug-options.ts';

export function chainEvents(chain: Chain, mempool: Mempool): ChainEvents {
  return {
    onBlock: (listener) => chain.onBlock(({ block }) => listener(block.header.height)),
    onPendingTx: (listener) => mempool.onPending(listener),
  };
}

export class EvmRpc {
  readonly filters: FilterStore;
  readonly dispatcher: Dispatcher;
  private readonly d: LegacyRpcDeps;
  private readonly backend: EvmBackend;
  private readonly events: ChainEvents;
  private hub: SubscriptionHub | undefined;
  /** The synthetic chain_/chain2_ views, with their own filter table (issue 9). */
  private readonly synthetic: SyntheticLegacy;

  constructor(d: Omit<LegacyRpcDeps, 'filters'>) {
    this.events = chainEvents(d.chain, d.mempool);
    const filterLimits: Omit<FilterOptions, 'timeoutMs'> = {
      maxFilters: d.evm.maxFilters,
      maxPendingHashes: d.evm.maxPendingFilterHashes,
      maxCriteria: d.evm.maxLogCriteria,
    };
    this.filters = new FilterStore(this.events, { timeoutMs: d.evm.filterTimeout, ...filterLimits });
    this.d = { ...d, filters: this.filters };
    this.backend = evmBackend(this.d);
    // One Tracing for debug_trace* and chain_trace*: max_concurrent_trace_calls counts both.
    const tracing = traceServices(this.d, this.backend.chain);
    this.dispatcher = createEvmDispatcher(this.d, this.backend, tracing);
    this.synthetic = createSyntheticLegacy({
      chain: d.chain,
      blocks: d.blocks,
      ss: d.ss,
      reader: this.backend.chain,
      options: this.backend.options,
      pool: this.backend.pool,
      events: this.events,
      filterTimeoutMs: d.evm.filterTimeout,
      filterLimits,
      tracer: blockTracer(tracing, (v) => parseTraceOptions(v)),
    });
  }

  http(): JsonRpcHttpServer {
    // The deprecated chain_/chain2_ surface is HTTP-only (issue 9).
    return createEvmRpcServer(
      this.d,
      legacyHttpDispatcher(this.dispatcher, this.d, this.backend, this.synthetic.methods),
    );
  }

  ws(): JsonRpcWsServer {
    const log = this.d.logger.child({ module: 'rpc' });
    const evm = this.d.evm;
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
    return new JsonRpcWsServer(webSocketDispatcher(this.dispatcher), {
      // Local only, like the HTTP server (and geth's default --ws.addr).
      host: '127.0.0.1',
      port: this.d.evm.wsPort,
      maxMessageBytes: this.d.evm.maxRequestBodyBytes,
      batchLimit: this.d.evm.batchRequestLimit,
      maxJsonDepth: this.d.evm.maxJsonDepth,
      maxConnections: this.d.evm.wsMaxConnections,
      maxBufferedBytes: this.d.evm.maxBufferedAnswerBytes,
      maxInFlight: this.d.evm.wsMaxRequestsInFlight,
      handshakeTimeoutMs: this.d.evm.readHeaderTimeout,
      pingIntervalMs: this.d.evm.wsPingInterval,
      logger: log,
      connectionMethods: (notify) => subscriptionMethods(hub, this.backend, notify),
    });
  }

  close(): void {
    this.hub?.close();
    this.filters.close();
    this.synthetic.close();
  }
}
