/** The eth_, net_ and web3_ method table served over HTTP (and, later, WebSocket). */
import type { MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';
import { blockMethods } from './blocks.ts';
import { chainInfoMethods } from './chain-info.ts';
import { debugMethods, type Tracing } from './debug.ts';
import { ethConfigMethods } from './eth-config.ts';
import { feeMethods } from './fees.ts';
import { filterMethods } from './filters.ts';
import type { FilterStore } from './filters-store.ts';
import { logMethods } from './logs.ts';
import { otsMethods } from './ots.ts';
import { proofMethods, type ProofReader } from './proof.ts';
import { Resolver } from './resolve.ts';
import { simulateMethods, type SimulationBackend } from './simulate.ts';
import { type MultiBlockSimulationBackend, simulateV1Methods } from './simulate-v1.ts';
import { stateMethods } from './state.ts';
import type { InclusionWaits } from './send-sync.ts';
import { txBySenderMethods } from './tx-by-sender.ts';
import { txMethods } from './txs.ts';
import { txpoolMethods } from './txpool.ts';
import { traceMethods } from './trace.ts';
import type { ParityTraceBackend } from './trace-backend.ts';
import { AddressIndexSource, BlockWalkSource, type TraceFilterSource } from './trace-filter.ts';

export type {
  AddressHistory,
  ChainReader,
  EvmBackend,
  EvmRpcOptions,
  LogMatch,
  LogSearch,
  StateAt,
  StatePoint,
  TxPool,
} from './backend.ts';

export { FilterStore, DEFAULT_MAX_FILTERS, type ChainEvents, type FilterOptions } from './filters-store.ts';
export { SubscriptionHub, subscriptionMethods } from './subscriptions.ts';
export { InclusionWaits } from './send-sync.ts';

/** `filters`: the node's installed filters; without it the filter methods are not served. */
export type { ProofReader } from './proof.ts';
export type { SimulationBackend } from './simulate.ts';
export {
  type BlockTraceEntry,
  type TraceBackend,
  type TraceCallOptions,
  type TraceLimits,
  type TraceOptions,
  Tracing,
} from './debug.ts';
export type {
  BlockReplay,
  LocalizedTrace,
  ParityTrace,
  ParityTraceBackend,
  ReplayedTrace,
  TraceResults,
  TraceType,
} from './trace-backend.ts';
export {
  AddressIndexSource,
  BlockWalkSource,
  type TraceCandidate,
  type TraceFilterSource,
} from './trace-filter.ts';

/** The trace_* methods' backend and trace_filter's bounds (served with `tracing`). */
export interface ParityTracing {
  backend: ParityTraceBackend;
  /** which txs trace_filter replays; absent: every Ethereum tx of the range (BlockWalkSource) */
  filterSource?: TraceFilterSource;
  /** `[evm] max_trace_filter_blocks` */
  maxFilterBlocks: number;
}

/**
 * `simulation`/`proofs`/`tracing`/`parity`/`waits`: eth_call & co., eth_getProof, debug_trace*,
 * trace_* (with `tracing`) and eth_sendRawTransactionSync, served when given.
 */
export function evmMethods(
  backend: EvmBackend,
  live: {
    filters?: FilterStore;
    simulation?: SimulationBackend & MultiBlockSimulationBackend;
    proofs?: ProofReader;
    tracing?: Tracing;
    parity?: ParityTracing;
    waits?: InclusionWaits;
  } = {},
): MethodTable {
  const resolve = new Resolver(backend.chain);
  return {
    ...(live.filters ? filterMethods(backend, resolve, live.filters) : {}),
    ...chainInfoMethods(backend, resolve),
    ...ethConfigMethods(backend.chain),
    ...stateMethods(backend, resolve),
    ...blockMethods(backend, resolve),
    ...txMethods(backend, resolve, live.waits),
    ...txBySenderMethods(backend, resolve),
    ...txpoolMethods(backend),
    ...logMethods(backend, resolve),
    ...feeMethods(backend, resolve),
    ...(live.simulation ? simulateMethods(live.simulation, resolve, backend.options.maxResponseBytes) : {}),
    ...(live.simulation ? simulateV1Methods(live.simulation, resolve, backend.options.maxResponseBytes) : {}),
    ...(live.proofs ? proofMethods(live.proofs, resolve) : {}),
    ...(live.tracing ? debugMethods(live.tracing, resolve, backend.chain) : {}),
    ...(live.tracing && live.parity
      ? traceMethods(
          live.tracing,
          live.parity.backend,
          resolve,
          backend.chain,
          live.parity.filterSource ?? traceFilterSource(backend.chain),
          live.parity.maxFilterBlocks,
        )
      : {}),
    ...otsMethods(backend, resolve, live.tracing),
  };
}

/**
 * Geth methods this node could name but does not serve because any answer would be false: the RLP
 * of a block or header hashes (keccak-256) to the block hash on Ethereum, while this chain's block
 * hash is CometBFT's header hash, so no RLP encoding matches the hash every other method answers.
 */
const UNTRUTHFUL: Readonly<Record<string, string>> = {
  debug_getRawBlock: 'an RLP block',
  debug_getRawHeader: 'an RLP header',
};

/** Why one of the names above is not served (-32601's message); undefined for any other name. */
export function whyEvmMethodNotServed(name: string): string | undefined {
  const what = UNTRUTHFUL[name];
  return what
    ? `the method ${name} is not available: this chain's block hash is CometBFT's header hash, not ` +
        `the keccak-256 of an RLP-encoded Ethereum header, so ${what} would not match the block hash ` +
        'the node serves; use eth_getBlockByNumber / eth_getHeaderByNumber'
    : undefined;
}

/** trace_filter's candidates: from the address index when the node keeps one, else every tx. */
function traceFilterSource(chain: EvmBackend['chain']): TraceFilterSource {
  const walk = new BlockWalkSource(chain);
  return chain.addressHistory ? new AddressIndexSource(chain.addressHistory, walk) : walk;
}
