/**
 * The RPC reader threads of the EVM JSON-RPC HTTP port (`[evm] http_reader_threads`;
 * docs/adr/0025-rpc-reader-threads.md), seen from the main thread: it starts them on the port its own
 * listener bound (both with SO_REUSEPORT), publishes the height it serves as latest into memory they
 * share, answers the payloads they forward with its own HTTP dispatcher, keeps their RPC metrics for
 * /metrics, restarts one that dies, and stops them before the stores close.
 */
import type { AdmissionShared } from './evm-admission.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Genesis } from '../app/genesis.ts';
import type { AppToml, NodeConfig } from '../config/schema.ts';
import type { CallContext } from '../rpc/server/dispatcher.ts';
import type { PayloadHandler } from '../rpc/server/http.ts';
import type { StateStoreOptions } from '../storage/ss/index.ts';
import { resolveLayout } from '../storage/ss/options.ts';
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import type { FromReader, ReaderThreadData, ToReader } from './rpc-reader-thread.ts';

type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** How often a reader thread sends its RPC metrics; /metrics may lag its counts by this much. */
const METRICS_INTERVAL_MS = 1_000;
/** A reader thread that died is started again after this long. */
const RESTART_DELAY_MS = 1_000;
/** A reader thread that has not stopped this long after being asked is terminated. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * How many reader threads to start, or why none: `auto` is 1 with 2 cores or more (the main thread
 * keeps one core for blocks and everything else), else 0.
 */
export function readerThreadPlan(
  config: NodeConfig,
  cores = availableParallelism(),
): { threads: number; reason: string } {
  const { evm } = config.app;
  const setting = evm.httpReaderThreads;
  const wanted = setting === 'auto' ? (cores >= 2 ? 1 : 0) : Number(setting);
  const what = `[evm] http_reader_threads = ${setting}`;
  if (wanted === 0) return { threads: 0, reason: setting === 'auto' ? `${what} on ${cores} core(s)` : what };
  if (!evm.httpEnabled) return { threads: 0, reason: '[evm] http_enabled = false' };
  const ss = config.app.stateStore;
  if (!ss.ssEnable)
    return {
      threads: 0,
      reason: `state-store.ss-enable = false: the latest state lives in State Commit, which only the main thread reads`,
    };
  if (resolveLayout({ dataDir: '', backend: ss.ssBackend }).engine !== 'lmdb')
    return {
      threads: 0,
      reason: `state-store.ss-backend = ${ss.ssBackend}: only lmdb databases can be read from another thread`,
    };
  return { threads: wanted, reason: setting === 'auto' ? `${what} on ${cores} core(s)` : what };
}

export interface RpcReadersOptions {
  threads: number;
  dataDir: string;
  genesis: Genesis;
  evm: AppToml['evm'];
  stateStore: StateStoreOptions;
  host: string;
  /** The main listener's bound port. */
  port: number;
  /** Where every thread listening on the port counts its connections (`[evm] http_max_connections`). */
  connectionCount: Int32Array;
  /** The JWT secret and the quota buckets, shared with the main thread's listeners. */
  admission: AdmissionShared;
  /** The main thread's HTTP dispatcher: it answers forwarded payloads. */
  handler: PayloadHandler;
  chain: { readonly latestHeight: number; onHead(listener: (height: number) => void): () => void };
  logger: Logger;
}

interface Slot {
  worker: Worker | undefined;
  metrics: MetricsSnapshot | undefined;
  restart: NodeJS.Timeout | undefined;
}

export class RpcReaders {
  private readonly o: RpcReadersOptions;
  private readonly log: Logger;
  /** [the height the main thread serves as latest, the rewinds of a dev chain so far] */
  private readonly head = new SharedArrayBuffer(16);
  private readonly slots: Slot[];
  /** The last metrics of reader threads that died, so that the counters never go back. */
  private retired: MetricsSnapshot | undefined;
  private stopping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(o: RpcReadersOptions) {
    this.o = o;
    this.log = o.logger.child({ module: 'rpc' });
    this.slots = Array.from({ length: o.threads }, () => ({
      worker: undefined,
      metrics: undefined,
      restart: undefined,
    }));
  }

  /** Starts every thread and resolves once each listens (or rejects with why one could not). */
  async start(): Promise<void> {
    const published = new BigInt64Array(this.head);
    Atomics.store(published, 0, BigInt(this.o.chain.latestHeight));
    // the height moves on the main thread only after the block's listeners ran: a reader can never
    // name a head the main thread's own answers have not reached
    // A head that goes down is a dev chain's rewind (evm_revert), published before its stores move:
    // the count is raised first, so a thread that reads the lower head also sees that its view and
    // caches of the heights above it are void.
    this.unsubscribe = this.o.chain.onHead((h) => {
      if (h < Number(Atomics.load(published, 0))) Atomics.add(published, 1, 1n);
      Atomics.store(published, 0, BigInt(h));
    });
    await Promise.all(this.slots.map((_, i) => this.spawn(i)));
  }

  /** Each thread's latest RPC metrics, and those of threads that died, for /metrics. */
  metrics(): MetricsSnapshot[] {
    const out: MetricsSnapshot[] = [];
    if (this.retired) out.push(this.retired);
    for (const s of this.slots) if (s.metrics) out.push(s.metrics);
    return out;
  }

  /** Each slot's thread, in order; undefined while a slot waits to be started again. */
  get threads(): readonly (Worker | undefined)[] {
    return this.slots.map((s) => s.worker);
  }

  private spawn(index: number): Promise<void> {
    const slot = this.slots[index];
    const { o } = this;
    const data: ReaderThreadData = {
      index,
      dataDir: o.dataDir,
      genesis: o.genesis,
      evm: o.evm,
      stateStore: o.stateStore,
      head: this.head,
      host: o.host,
      port: o.port,
      connectionCount: o.connectionCount.buffer as SharedArrayBuffer,
      admission: o.admission,
      metricsIntervalMs: METRICS_INTERVAL_MS,
    };
    const worker = new Worker(new URL('./rpc-reader-thread.ts', import.meta.url), { workerData: data });
    slot.worker = worker;
    const log = this.log.child({ reader_thread: index });
    return new Promise((resolve, reject) => {
      let listening = false;
      worker.on('message', (m: FromReader) => {
        switch (m.type) {
          case 'listening':
            listening = true;
            resolve();
            return;
          case 'forward':
            this.answer(worker, m.id, m.payload);
            return;
          case 'metrics':
            slot.metrics = m.metrics;
            return;
          case 'log':
            log[m.level](m.fields, m.msg);
            return;
          case 'stopped':
            return;
        }
      });
      worker.on('error', (err) => log.error({ err: errorMessage(err) }, 'RPC reader thread failed'));
      worker.on('exit', (code) => {
        slot.worker = undefined;
        if (!listening) {
          reject(new Error(`RPC reader thread ${index} exited (code ${code}) before it listened`));
          return;
        }
        if (this.stopping) return;
        // the port stays served by the other threads meanwhile; the dead one's counts are kept
        log.error({ code, restart_in_ms: RESTART_DELAY_MS }, 'RPC reader thread exited; starting it again');
        this.retire(slot);
        slot.restart = setTimeout(() => {
          slot.restart = undefined;
          if (this.stopping) return;
          this.spawn(index).catch((err) =>
            log.error({ err: errorMessage(err) }, 'RPC reader thread could not be started again'),
          );
        }, RESTART_DELAY_MS);
      });
    });
  }

  private retire(slot: Slot): void {
    if (!slot.metrics) return;
    const parts = this.retired ? [this.retired, slot.metrics] : [slot.metrics];
    slot.metrics = undefined;
    void AggregatorRegistry.aggregate(parts)
      .getMetricsAsJSON()
      .then((m) => (this.retired = m as MetricsSnapshot));
  }

  private answer(worker: Worker, id: number, payload: unknown): void {
    const ctx: CallContext = {};
    const reply = (m: ToReader) => {
      // a thread that died meanwhile took the connection with it
      if (this.slots.some((s) => s.worker === worker)) worker.postMessage(m);
    };
    this.o.handler.handlePayloadText(payload, this.o.evm.batchRequestLimit, ctx).then(
      (json) => reply({ type: 'answer', id, answer: { json, headers: ctx.headers } }),
      (err) => reply({ type: 'answer', id, error: errorMessage(err) }),
    );
  }

  /** Stops every thread: listeners closed, in-flight requests answered, their stores closed. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.restart);
        const worker = slot.worker;
        if (!worker) return;
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ type: 'stop' } satisfies ToReader);
        const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
