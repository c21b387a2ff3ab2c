/**
 * The EVM JSON-RPC's listeners as `[evm]` enables them, opened under the node's Lifecycle: one EvmRpc
 * (one dispatcher and one filter store) behind HTTP and WebSocket, and the reader threads that serve
 * the HTTP port beside the main thread. The reader threads stop first, closing their views of the
 * stores before anything else closes.
 */
import type { Registry } from 'prom-client';
import type { Chain } from '../chain/chain.ts';
import type { TxSubmission } from '../chain/engine.ts';
import { PendingBlocks } from '../chain/pending-block.ts';
import type { SyncStatus } from '../chain/sync-status.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { DevNode } from '../rpc/dev/index.ts';
import type { JsonRpcHttpServer } from '../rpc/server/http.ts';
import type { JsonRpcWsServer } from '../rpc/server/ws.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { StateStore } from '../storage/ss/index.ts';
import { admissionShared, type AdmissionShared } from './evm-admission.ts';
import { EVM_RPC_HOST, EvmRpc } from './evm-rpc.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { NodeSetup } from './node-options.ts';
import { readerThreadPlan, RpcReaders } from './rpc-readers.ts';
import { stateStoreOptions } from './stores.ts';

export interface EvmListenerModules {
  chain: Chain;
  ss: StateStore;
  sc: CommitStore;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  submission: TxSubmission;
  sync: () => SyncStatus;
  /** A dev chain's methods act on this; absent: they are refused as dev-chain methods. */
  dev?: DevNode;
  /** The pending block's clock (ms): a dev chain's moved clock; the wall clock otherwise. */
  now?: () => number;
  /**
   * The chain is a fork: its state is partly the remote's, which only the main thread's stores read
   * (fork/forked-state.ts), so no reader thread may answer from the databases alone.
   */
  forked?: boolean;
}

/** What is listening; a listener its config disables is absent. */
export interface EvmListeners {
  http: JsonRpcHttpServer | undefined;
  readers: RpcReaders | undefined;
  ws: JsonRpcWsServer | undefined;
}

export async function openEvmListeners(
  lc: Lifecycle,
  o: NodeSetup,
  /** The dispatcher records per-method RPC metrics here. */
  registry: Registry,
  m: EvmListenerModules,
): Promise<EvmListeners> {
  const evm = o.config.app.evm;
  const served = await lc.open(
    'evm-rpc',
    async () => {
      if (!evm.httpEnabled && !evm.wsEnabled) return undefined;
      const admission = admissionShared(evm, o.home);
      const rpc = new EvmRpc(
        { evm, genesis: o.genesis, logger: o.logger, registry, admission },
        {
          ...m,
          pending: new PendingBlocks(m.chain, { mempool: m.mempool, cosmosPool: m.cosmosPool }, m.now),
        },
      );
      return { rpc, ...(await openHttp(o, rpc, admission, m.chain, m.forked === true)) };
    },
    async (built) => {
      built?.rpc.endWaits();
      await built?.readers?.stop();
      await built?.http?.stop();
      built?.rpc.close();
    },
  );
  const ws = await lc.open(
    'evm-ws',
    async () => {
      const server = evm.wsEnabled ? served?.rpc.ws() : undefined;
      await server?.start();
      return server;
    },
    async (server) => server?.stop(),
  );
  return { http: served?.http, readers: served?.readers, ws };
}

/** HTTP when enabled, listening, with its reader threads started; nothing left running if they fail. */
async function openHttp(
  o: NodeSetup,
  rpc: EvmRpc,
  admission: AdmissionShared,
  chain: Chain,
  forked: boolean,
): Promise<Pick<EvmListeners, 'http' | 'readers'>> {
  const { config, logger } = o;
  const evm = config.app.evm;
  const plan = forked
    ? { threads: 0, reason: 'a forked chain: state the remote holds is read on the main thread only' }
    : readerThreadPlan(config);
  // with reader threads, http_max_connections holds for the port: every thread counts here
  const connectionCount = new Int32Array(new SharedArrayBuffer(4));
  const http = evm.httpEnabled ? rpc.http(plan.threads > 0 ? { connectionCount } : undefined) : undefined;
  await http?.start();
  let readers: RpcReaders | undefined;
  if (http && plan.threads > 0) {
    readers = new RpcReaders({
      threads: plan.threads,
      dataDir: o.dataDir,
      genesis: o.genesis,
      evm,
      stateStore: stateStoreOptions(o.dataDir, config),
      host: EVM_RPC_HOST,
      port: http.port,
      connectionCount,
      admission,
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
  logger
    .child({ module: 'node' })
    .info({ threads: plan.threads, why: plan.reason }, 'EVM JSON-RPC reader threads');
  return { http, readers };
}
