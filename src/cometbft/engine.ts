/**
 * Network mode's engine: chaind's ABCI++ application served on a unix socket, the `cometbft` child
 * that drives it, the client of that child's RPC and the health read from it. Started after the
 * chain and the mempools, stopped before them (CometBFT first, so no request arrives at a closing
 * application).
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { AdmissionPools, CheckTxResult } from '../mempool/check-tx.ts';
import { fromHex } from '../primitives/bytes.ts';
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import { rejectMessages } from '../mempool/errors.ts';
import type { Logger } from '../util/logger.ts';
import { noSpaceDirIn } from '../util/out-of-disk.ts';
import { AbciServer } from './abci/server.ts';
import { ChaindAbciApp } from './app.ts';
import { type CometConfigOptions, writeCometConfig } from './config.ts';
import { CometHealth } from './health.ts';
import { CometLogTranslator } from './log-lines.ts';
import { CometProcess } from './process.ts';
import { RestoreProgress } from './restore-progress.ts';
import { SnapshotStore } from './snapshots.ts';
import { type CometBroadcastResult, CometRpcClient } from './rpc-client.ts';

export type CometSettings = Omit<
  CometConfigOptions,
  'home' | 'dataDir' | 'cometHome' | 'proxyApp' | 'rpcLaddr' | 'prometheusLaddr'
>;

export interface CometEngineOptions {
  home: string;
  dataDir: string;
  /** The cometbft binary (binary.ts resolves it). */
  binary: string;
  chain: Chain;
  pools: AdmissionPools;
  genesis: Genesis;
  version: string;
  query(req: RequestQuery): Promise<ResponseQuery>;
  settings: CometSettings;
  logger: Logger;
  /** The child died or the application cannot go on: the node stops, with this reason. */
  onFatal(reason: string): void;
  /** `app.toml [state-sync]`: a snapshot every `interval` heights (0: none), the newest `keepRecent` kept. */
  snapshots: { interval: number; keepRecent: number; chunkBytes: number };
}

/** A unix socket path must fit sockaddr_un (108 bytes on Linux). */
const MAX_SOCKET_PATH = 100;

export class CometEngine {
  private readonly o: CometEngineOptions;
  readonly cometHome: string;
  private readonly translator: CometLogTranslator;
  private abci: AbciServer | undefined;
  private app: ChaindAbciApp | undefined;
  private process: CometProcess | undefined;
  private rpcClient: CometRpcClient | undefined;
  private metricsPort = 0;
  readonly health: CometHealth;
  /** The state sync of a node that restores a snapshot at this start (none otherwise). */
  private readonly restore = new RestoreProgress();
  private restoreWatch: NodeJS.Timeout | undefined;

  constructor(o: CometEngineOptions) {
    this.o = o;
    this.cometHome = join(o.home, 'cometbft');
    this.translator = new CometLogTranslator(
      () => ({
        latestHeight: o.chain.latestHeight,
        blockHash: (h) => {
          const hash = o.chain.blocks.blockHashByHeight(h);
          return hash ? Buffer.from(hash).toString('hex').toUpperCase() : undefined;
        },
      }),
      (e) => {
        if (e.kind === 'chunk-missing' && e.height !== undefined) this.restore.missingAnswer(e.height);
        if (e.kind === 'snapshot-given-up') this.restore.rejected(e.height);
      },
      (dir) => o.chain.outOfDisk(dir ?? join(o.dataDir, 'cometbft')),
    );
    const c = o.settings.consensus;
    this.health = new CometHealth({
      call: (method, params, timeoutMs) => this.rpc.call(method, params, timeoutMs),
      latestHeight: () => o.chain.latestHeight,
      // an idle proposer turn costs timeout-propose; many in a row mean no quorum
      stallAfterMs: Math.max(10_000, 10 * (c.timeoutCommitMs + c.timeoutProposeMs)),
      expectBlocks: c.createEmptyBlocks,
      mismatch: () => this.translator.mismatch,
      stateSync: () => this.restore.status(),
      logger: o.logger.child({ module: 'cometbft' }),
    });
  }

  /** The child's RPC (loopback); defined once started. */
  get rpc(): CometRpcClient {
    if (!this.rpcClient) throw new Error('the CometBFT engine has not started');
    return this.rpcClient;
  }

  /** CometBFT's Prometheus endpoint (loopback), whose series /metrics serves beside chaind's. */
  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  async start(): Promise<void> {
    const { o } = this;
    const socket = abciSocketPath(o.dataDir);
    const app = new ChaindAbciApp({
      chain: o.chain,
      pools: o.pools,
      genesis: o.genesis,
      version: o.version,
      query: o.query,
      logger: o.logger,
      snapshots: {
        store: new SnapshotStore({
          dir: join(o.dataDir, 'snapshots'),
          keepRecent: o.snapshots.keepRecent,
          chunkBytes: o.snapshots.chunkBytes,
        }),
        interval: o.snapshots.interval,
        restoreDir: join(o.dataDir, 'snapshots', '.restore'),
        progress: this.restore,
      },
      parentHash: (height) => this.parentHashOf(height),
    });
    this.app = app;
    this.abci = new AbciServer(socket, app, o.logger);
    await this.abci.listen();
    const [rpcPort, metricsPort] = await Promise.all([freePort(), freePort()]);
    this.metricsPort = metricsPort;
    this.rpcClient = new CometRpcClient(`http://127.0.0.1:${rpcPort}`);
    const path = writeCometConfig({
      ...o.settings,
      home: o.home,
      dataDir: o.dataDir,
      cometHome: this.cometHome,
      proxyApp: `unix://${socket}`,
      rpcLaddr: `tcp://127.0.0.1:${rpcPort}`,
      prometheusLaddr: `127.0.0.1:${metricsPort}`,
    });
    o.logger.info({ module: 'cometbft', config: path, binary: o.binary }, 'rendered CometBFT config');
    this.process = new CometProcess({
      binary: o.binary,
      cometHome: this.cometHome,
      logger: o.logger,
      translator: this.translator,
      onUnexpectedExit: (reason) => {
        // a panic on a full disk may end the process before its last lines are read
        const full = noSpaceDirIn(reason);
        if (full !== undefined) o.chain.outOfDisk(full || join(o.dataDir, 'cometbft'));
        this.health.engineDied(reason);
        o.onFatal(reason);
      },
    });
    // CometBFT state syncs only a node without blocks
    if (o.settings.statesync.enable && o.chain.latestHeight === 0) this.watchRestore();
    await this.process.start();
    this.health.start();
  }

  /**
   * Logs what the restore waits for every chunk_request_timeout without a chunk, and gives it up
   * (the node stops, with the remedy) once no chunk came for the stall time (restore-progress.ts).
   */
  private watchRestore(): void {
    const log = this.o.logger.child({ module: 'statesync' });
    this.restore.begin();
    this.restoreWatch = setInterval(() => {
      const { waiting, stalled } = this.restore.check();
      if (waiting)
        log.warn(
          {
            height: waiting.snapshotHeight,
            chunk: waiting.waitingForChunk,
            received: waiting.chunksReceived,
            chunks: waiting.chunks,
            since_last_chunk_s: waiting.secondsSinceLastChunk,
            missing_answers: waiting.missingAnswers,
          },
          'state sync waiting for a snapshot chunk',
        );
      if (stalled) {
        clearInterval(this.restoreWatch);
        log.error({ ...this.restore.status() }, stalled);
        this.health.engineDied(stalled);
        this.o.onFatal(stalled);
      }
    }, 1000);
    this.restoreWatch.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.restoreWatch);
    this.health.stop();
    // a chain stopped by a full disk leaves CometBFT waiting on an unanswered call (app.ts): closing
    // the application's connections first ends that wait, so CometBFT stops without its grace period
    if (this.o.chain.diskFull) await this.abci?.close();
    await this.process?.stop();
    this.rpcClient?.close();
    await this.abci?.close();
    await this.app?.close();
  }

  /**
   * The parent hash of block `height` as CometBFT holds it: the header of `height` (stored by
   * CometBFT before it asks the application to finalize it) names its parent. Asked only for the
   * first block after a state sync; retried briefly, and a failure fails the block rather than
   * storing a made-up hash.
   */
  private async parentHashOf(height: number): Promise<Uint8Array> {
    let last: unknown;
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const r = await this.rpc.call<{ header: { last_block_id: { hash: string } } }>('header', {
          height: String(height),
        });
        const hash = fromHex(r.header.last_block_id.hash);
        if (hash.length === 32) return hash;
        last = new Error(`header ${height} names no parent hash`);
      } catch (err) {
        last = err;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(
      `the hash of block ${height - 1} (the parent of ${height}) is not available from CometBFT: ${(last as Error).message}`,
    );
  }

  /**
   * Hands a TxRaw to CometBFT (broadcast_tx_sync): CometBFT checks it with this node's application
   * (CheckTx), keeps it in its mempool and gossips it to its peers.
   */
  async submit(txRaw: Uint8Array): Promise<CheckTxResult> {
    let r: CometBroadcastResult;
    try {
      r = await this.rpc.call<CometBroadcastResult>('broadcast_tx_sync', {
        tx: Buffer.from(txRaw).toString('base64'),
      });
    } catch (err) {
      // CometBFT refuses some txs itself, before CheckTx: answered as the mempool would
      const refusal = cometRefusal((err as Error).message);
      if (!refusal) throw err;
      return { ...refusal, codespace: 'sdk', gasWanted: 0n, hash: cosmosTxHash(txRaw) };
    }
    return {
      code: r.code,
      codespace: r.codespace,
      log: r.log,
      info: r.code !== 0 && r.data ? Buffer.from(r.data, 'base64').toString('utf8') : '',
      gasWanted: 0n,
      hash: fromHex(r.hash),
    };
  }
}

/** CometBFT's own mempool refusals (its cache, its size), in the EVM mempool's terms. */
function cometRefusal(message: string): { code: number; log: string; info: string } | undefined {
  if (/tx already exists in cache/.test(message))
    return { code: 19, log: rejectMessages.alreadyKnown(), info: 'already_known' };
  if (/mempool is full/.test(message))
    return { code: 20, log: rejectMessages.txpoolFull(), info: 'txpool_full' };
  return undefined;
}

export function abciSocketPath(dataDir: string): string {
  const inData = join(dataDir, 'abci.sock');
  if (inData.length <= MAX_SOCKET_PATH) return inData;
  const id = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  return join(tmpdir(), `chaind-abci-${id}.sock`);
}

/** A port nothing listens on now (127.0.0.1), for the child's loopback listeners. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
