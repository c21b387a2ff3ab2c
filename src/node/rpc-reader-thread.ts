/**
 * An RPC reader thread (worker_threads entry; started by rpc-readers.ts): the EVM JSON-RPC HTTP
 * transport on the node's port (SO_REUSEPORT beside the main thread's listener), answering the plain
 * reads of committed data from its own read-only view of the block store and the State Store, and
 * passing every other payload to the main thread (rpc/server/reader-payloads.ts).
 *
 * What `latest` is here: the height the main thread published (a shared counter it sets when its own
 * latest moves), and only once this thread's view holds that height (the block in the block store,
 * the state version in the State Store's databases); until then every payload is forwarded. So an
 * answer from here never names a head the main thread has not reached, nor one behind the head it
 * published before the payload arrived.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Counter, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Genesis } from '../app/genesis.ts';
import { baseFeeParamsFrom } from '../chain/base-fee.ts';
import { devBlockParams } from '../chain/block-execution.ts';
import { blockGasLimit } from '../chain/chain.ts';
import { VersionedState } from '../chain/state-at.ts';
import type { AppToml } from '../config/schema.ts';
import { type EvmBackend, evmMethods, type StateAt, type StatePoint } from '../rpc/evm/index.ts';
import { Dispatcher, type MethodTable } from '../rpc/server/dispatcher.ts';
import { JsonRpcHttpServer } from '../rpc/server/http.ts';
import { RpcMetrics } from '../rpc/server/metrics.ts';
import { type ForwardedAnswer, ReaderPayloads } from '../rpc/server/reader-payloads.ts';
import { openBlockStoreReader } from '../storage/blocks/store.ts';
import { openStateStoreReader, type StateStoreOptions } from '../storage/ss/index.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import type { LogFn, Logger, LogLevel } from '../util/logger.ts';
import { clientVersion, NodeChainReader } from './adapters/evm-chain-reader.ts';
import { type AdmissionShared, evmAdmission, servedNamespaces } from './evm-admission.ts';
import { evmHttpLimits } from './evm-http-limits.ts';

/**
 * The methods a reader thread answers itself: their answer depends only on committed blocks and
 * state at a height it can check it holds. Everything else (the mempool, the pending block, filters,
 * simulations, traces, logs, tx lookups...) is the main thread's.
 */
export const READER_LOCAL_METHODS: readonly string[] = [
  'eth_blockNumber',
  'eth_chainId',
  'net_version',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
];

export interface ReaderThreadData {
  index: number;
  dataDir: string;
  genesis: Genesis;
  evm: AppToml['evm'];
  stateStore: StateStoreOptions;
  /**
   * BigInt64Array[2] over it: the height the main thread serves as latest (-1: none yet), and how many
   * times it went down (a dev chain's evm_revert).
   */
  head: SharedArrayBuffer;
  host: string;
  /** The main listener's bound port. */
  port: number;
  /** Int32Array[1] over it: connections open on the port, all threads together. */
  connectionCount: SharedArrayBuffer;
  /** How often the RPC metrics go to the main thread's registry. */
  metricsIntervalMs: number;
  /**
   * The JWT secret and the quota buckets the main thread's listeners use: a payload is admitted (and
   * charged) here, before it is answered locally or forwarded; the main thread does not charge a
   * forwarded one again.
   */
  admission: AdmissionShared;
}

export type ToReader =
  { type: 'answer'; id: number; answer?: ForwardedAnswer; error?: string } | { type: 'stop' };

export type FromReader =
  | { type: 'listening' }
  | { type: 'forward'; id: number; payload: unknown }
  | { type: 'metrics'; metrics: MetricObjectWithValues<MetricValue<string>>[] }
  | { type: 'log'; level: LogLevel; fields: Record<string, unknown>; msg: string }
  | { type: 'stopped' };

const port = parentPort!;
const d = workerData as ReaderThreadData;
const send = (m: FromReader) => port.postMessage(m);

/** Log lines go to the main thread's logger (one output, one format). */
function threadLogger(bindings: Record<string, unknown>): Logger {
  const at =
    (level: LogLevel): LogFn =>
    (a: string | Record<string, unknown>, b?: string) =>
      typeof a === 'string'
        ? send({ type: 'log', level, fields: bindings, msg: a })
        : send({ type: 'log', level, fields: { ...bindings, ...a }, msg: b ?? '' });
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => threadLogger({ ...bindings, ...more }),
  };
}

/** NodeChainReader without `pending`: the pending block is the main thread's (its mempool). */
class ReaderThreadChain extends NodeChainReader {
  override stateAt(point: StatePoint): StateAt {
    if (point === 'pending')
      throw new ChainError('UNSUPPORTED', 'the pending state is read on the main thread');
    return super.stateAt(point);
  }
}

async function main(): Promise<void> {
  const log = threadLogger({});
  const blocks = await openBlockStoreReader(d.dataDir);
  const opened = await openStateStoreReader(d.stateStore);
  if ('refused' in opened) throw new Error(opened.refused);
  const ss = opened.store;
  const published = new BigInt64Array(d.head);
  /** The highest published height this thread's view was seen to hold: what `latest` means here. */
  let held = -1;
  const holds = (head: number) => (blocks.latestHeight() ?? 0) >= head && ss.latestVersion() >= head + 1;
  /** Whether the watermarks were read in this turn of the event loop. */
  let freshThisTurn = false;
  let rewindsSeen = 0n;
  const rewindListeners = new Set<(height: number) => void>();
  const ready = (): boolean => {
    // the head first: the main thread counts a rewind before it publishes the lower head
    const head = Number(Atomics.load(published, 0));
    const rewinds = Atomics.load(published, 1);
    if (rewinds !== rewindsSeen) {
      // The heights above the rewind's target will be other blocks: what this thread held of them
      // (its watermark, cached views and state reads) is dropped, all of it, as the target is not
      // known here (the head may have moved on since).
      rewindsSeen = rewinds;
      held = -1;
      freshThisTurn = false;
      states.reads.dropAbove(-1);
      for (const l of rewindListeners) l(-1);
    }
    if (head < 0) return false;
    if (freshThisTurn && held >= head) return true;
    // The watermarks (a prune raises the earliest ones) are read again at the first payload of each
    // turn of the event loop, and whenever the published head is above what this view was seen to
    // hold. lmdb moves a thread's read snapshot only between turns (its reset timer) or when asked
    // (refresh(true)), so every read of a turn sees the snapshot its watermarks came from. A view
    // older than the published head moves to the newest commits.
    blocks.refresh();
    ss.refresh();
    if (!freshThisTurn) {
      freshThisTurn = true;
      setImmediate(() => (freshThisTurn = false));
    }
    if (!holds(head)) {
      blocks.refresh(true);
      ss.refresh(true);
      if (!holds(head)) return false;
    }
    held = Math.max(held, head);
    return true;
  };
  const states = new VersionedState({ ss });
  const { genesis } = d;
  const reader = new ReaderThreadChain({
    chain: {
      get latestHeight() {
        return held;
      },
      gasLimit: blockGasLimit(genesis),
      // a dev chain's evm_setBlockGasLimit is in the state before the block (Chain.gasLimitAt)
      gasLimitAt: async (height: number) =>
        (height >= 1 ? await states.at(height - 1).read((st) => devBlockParams(st).gasLimit) : undefined) ??
        blockGasLimit(genesis),
      feeParams: baseFeeParamsFrom(genesis.app_state.evm.params.base_fee),
      get appHash(): Uint8Array {
        // the genesis view before block 1 takes State Commit's app hash, which only the main thread has
        throw new ChainError('UNSUPPORTED', "State Commit's app hash is read on the main thread");
      },
      stateAt: (height: number) => states.at(height),
      onRewind: (listener: (height: number) => void) => {
        rewindListeners.add(listener);
        return () => rewindListeners.delete(listener);
      },
    },
    blocks,
    ss,
    genesis,
  });
  const mainThreadOnly = (): never => {
    throw new ChainError('UNSUPPORTED', 'answered by the main thread');
  };
  const backend: EvmBackend = {
    chain: reader,
    pool: {
      get: mainThreadOnly,
      pendingNonce: mainThreadOnly,
      submit: mainThreadOnly,
      contents: mainThreadOnly,
    },
    options: {
      clientVersion: clientVersion(),
      maxBlocksForLog: d.evm.maxBlocksForLog,
      maxLogNoBlock: d.evm.maxLogNoBlock,
      maxResponseBytes: d.evm.maxResponseBytes,
    },
    sync: mainThreadOnly,
  };
  const all = evmMethods(backend);
  const table: MethodTable = Object.fromEntries(READER_LOCAL_METHODS.map((m) => [m, all[m]]));
  const registry = new Registry();
  registry.setDefaultLabels({ chain_id: genesis.chain_id });
  const metrics = new RpcMetrics(registry);
  const payloadsServed = new Counter({
    name: 'chaind_rpc_reader_payloads_total',
    help: 'JSON-RPC payloads (a request or a batch) that arrived on an RPC reader thread, by thread and where they were answered: local (by the thread) or forwarded (by the main thread)',
    labelNames: ['thread', 'answered'],
    registers: [registry],
  });
  const thread = String(d.index);

  let nextId = 0;
  const waiting = new Map<number, { resolve: (a: ForwardedAnswer) => void; reject: (e: Error) => void }>();
  const payloads = new ReaderPayloads({
    local: new Dispatcher(table, {
      denyList: d.evm.denyList,
      disabledNamespaces: d.evm.disabledNamespaces,
      servedNamespaces: servedNamespaces(d.evm, 'http'),
      maxResponseBytes: d.evm.maxResponseBytes,
    }),
    localMethods: new Set(READER_LOCAL_METHODS),
    ready,
    onLocal: () => payloadsServed.inc({ thread, answered: 'local' }),
    forward: (payload) =>
      new Promise((resolve, reject) => {
        payloadsServed.inc({ thread, answered: 'forwarded' });
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        send({ type: 'forward', id, payload });
      }),
    metrics,
    maxResponseBytes: d.evm.maxResponseBytes,
  });
  const { evm } = d;
  const server = new JsonRpcHttpServer(payloads, {
    host: d.host,
    port: d.port,
    sharePort: 'join',
    ...evmHttpLimits(evm),
    admission: evmAdmission(evm, d.admission, 'http', registry),
    connectionCount: new Int32Array(d.connectionCount),
    logger: log,
  });
  const reportMetrics = async () => send({ type: 'metrics', metrics: await registry.getMetricsAsJSON() });
  const timer = setInterval(() => void reportMetrics(), d.metricsIntervalMs);

  port.on('message', (m: ToReader) => {
    if (m.type === 'answer') {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (!w) return;
      if (m.answer) w.resolve(m.answer);
      else w.reject(new Error(m.error ?? 'the main thread did not answer'));
      return;
    }
    // stop: the listener closes and in-flight requests finish (forwarded ones are still answered),
    // then the last metrics go out and the stores close, before the main thread closes its own
    void (async () => {
      clearInterval(timer);
      await server.stop();
      await reportMetrics();
      await ss.close();
      await blocks.close();
      send({ type: 'stopped' });
      port.close();
    })().catch((err) => {
      log.error({ err: errorMessage(err) }, 'RPC reader thread failed to stop cleanly');
      process.exit(1);
    });
  });
  await server.start();
  send({ type: 'listening' });
}

main().catch((err) => {
  send({ type: 'log', level: 'error', fields: { err: errorMessage(err) }, msg: 'RPC reader thread failed' });
  process.exit(1);
});
