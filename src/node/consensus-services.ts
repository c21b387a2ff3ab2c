/**
 * The node's Cosmos-facing and operational listeners, each built from its config section over the
 * same consensus-RPC adapters (built once per start): the consensus RPC (`[rpc] laddr`), the REST API
 * (`[api]`), gRPC (`[grpc]`) and the Prometheus endpoint (`[instrumentation]`). Metrics live on one
 * registry with a `chain_id` label on every series; each module defines its own (chain/, producer/,
 * mempool/ metrics.ts).
 */
import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { StakingReader } from '../app/staking/reader.ts';
import type { Chain } from '../chain/chain.ts';
import { recordChainMetrics } from '../chain/metrics.ts';
import { validatorAddress } from '../codec/index.ts';
import { parseListenAddress } from '../config/fields.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import { registerMempoolMetrics } from '../mempool/metrics.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { recordConsensusMetrics } from '../producer/metrics.ts';
import { maxPeerHeight, notCurrent } from '../rpc/consensus/routes-info.ts';
import { ConsensusRpcServer } from '../rpc/consensus/server.ts';
import type { ConsensusRpcDeps } from '../rpc/consensus/types.ts';
import { GrpcServer } from '../rpc/grpc/server.ts';
import { RestServer } from '../rpc/rest/server.ts';
import { ChainError, ConfigError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { type ConsensusRpcSources, consensusRpcDeps } from './adapters/consensus-rpc.ts';
import { grpcDeps } from './adapters/grpc.ts';
import { restDeps } from './adapters/rest.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { NodeSetup } from './node-options.ts';
import { MetricsServer, type ThreadMetrics } from './metrics-server.ts';
import { registerNodeMetrics } from './node-metrics.ts';
import { blockEngine } from '../execution/block-engine.ts';

export const APP_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

export interface ServiceOptions {
  config: NodeConfig;
  /** The chain's id (`genesis.chain_id`) and its largest block in bytes. */
  chainId: string;
  maxBlockBytes: number;
  logger: Logger;
}

function listenAddress(value: string, key: string, file = 'config.toml'): { host: string; port: number } {
  const a = parseListenAddress(value);
  if (!a) throw new ConfigError(`${file}: ${key}: ${JSON.stringify(value)} is not a listen address`);
  return a;
}

const rpcLog = (o: ServiceOptions) => o.logger.child({ module: 'rpc' });

/** The consensus RPC on `[rpc] laddr`, listening. */
export async function startConsensusRpc(
  o: ServiceOptions,
  deps: ConsensusRpcDeps,
): Promise<ConsensusRpcServer> {
  const rpc = o.config.config.rpc;
  const log = rpcLog(o);
  const { host, port } = listenAddress(rpc.laddr, 'rpc.laddr');
  const server = new ConsensusRpcServer(deps, {
    host,
    port,
    maxBodyBytes: rpc.maxBodyBytes,
    corsAllowedOrigins: rpc.corsAllowedOrigins,
    lagThreshold: rpc.lagThreshold,
    maxOpenConnections: rpc.maxOpenConnections,
    logger: log,
  });
  await server.start();
  log.info({ address: server.url }, 'consensus RPC listening');
  return server;
}

export interface MetricsModules {
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  consensus: ConsensusRpcDeps;
  /** The data directory, whose stores' sizes are reported. */
  dataDir: string;
  /** The RPC metrics of the RPC reader threads, summed into /metrics. */
  threadMetrics?: () => ThreadMetrics[];
}

/**
 * The Prometheus endpoint when `[instrumentation] prometheus`, listening, with every module's metrics
 * recorded on `registry`; `unsubscribe` stops the recording.
 */
/** prom-client default metrics left out of /metrics: see startMetrics. */
export const GAUGES_NAMED_TOTAL = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export async function startMetrics(
  o: ServiceOptions,
  registry: Registry,
  m: MetricsModules,
  /** Network mode: where CometBFT serves its own series, merged into the answer (metrics-merge.ts). */
  engineMetricsUrl?: string,
): Promise<{ server: MetricsServer; unsubscribe: () => void } | undefined> {
  const instr = o.config.config.instrumentation;
  if (!instr.prometheus) return undefined;
  const lagThreshold = o.config.config.rpc.lagThreshold;
  const { chain, mempool, cosmosPool, consensus } = m;
  const ns = instr.namespace;
  const unsubscribe: (() => void)[] = [];
  const stopRecording = () => {
    for (const off of unsubscribe.splice(0)) off();
  };
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool rejects a `_total` gauge); the same counts stay available
  // per type in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
  for (const name of GAUGES_NAMED_TOTAL) registry.removeSingleMetric(name);
  unsubscribe.push(recordChainMetrics(registry, ns, chain));
  registerMempoolMetrics(registry, ns, {
    size: () => mempool.size + cosmosPool.size,
    evmPending: () => mempool.pending(),
    evmQueued: () => mempool.queued(),
  });
  // the staking state's validators at the latest height, read per scrape and per block: a validator
  // that joins gets a series, a jailed one reads 0, one that leaves stops counting misses
  const validators = () =>
    new StakingReader(chain.state).validators().map((v) => ({
      address: validatorAddress(new Uint8Array(Buffer.from(v.consensus_pubkey.key, 'base64'))),
      active: v.status === 'BOND_STATUS_BONDED' && !v.jailed,
    }));
  const lagBlocks = () => {
    const own = chain.latestHeight;
    return Math.max(maxPeerHeight(consensus.network, own), consensus.sync().bestKnownHeight) - own;
  };
  unsubscribe.push(
    recordConsensusMetrics(registry, ns, {
      onBlock: (l) => chain.onBlock(l),
      validatorSet: () => validators().flatMap((v) => (v.active ? [v.address] : [])),
      validatorStatuses: validators,
      // As /lag_status answers 200: making progress, not catching up, within the lag threshold.
      atNetworkHeight: () => !notCurrent(consensus.sync()) && lagBlocks() <= lagThreshold,
    }),
  );
  registerNodeMetrics(registry, ns, { lagBlocks, dataDir: m.dataDir, blockEngine: blockEngine().name });
  const { host, port } = listenAddress(instr.prometheusListenAddr, 'instrumentation.prometheus-listen-addr');
  const server = new MetricsServer(
    registry,
    host,
    port,
    rpcLog(o),
    instr.maxOpenConnections,
    engineMetricsUrl
      ? {
          namespace: ns,
          scrape: async () => (await fetch(engineMetricsUrl, { signal: AbortSignal.timeout(2_000) })).text(),
        }
      : undefined,
    m.threadMetrics,
  );
  try {
    await server.start();
  } catch (err) {
    stopRecording();
    throw err;
  }
  const a = server.address;
  rpcLog(o).info({ address: `${a.host}:${a.port}` }, 'metrics listening');
  return { server, unsubscribe: stopRecording };
}

/**
 * The REST API when `[api] enable`, listening. `rpcAddress`: the consensus RPC's bound address
 * (port 0 picks one), which node_info reports.
 */
export async function startRestApi(
  o: ServiceOptions,
  deps: ConsensusRpcDeps,
  rpcAddress: () => string,
): Promise<RestServer | undefined> {
  const api = o.config.app.api;
  if (!api.enable) return undefined;
  const log = rpcLog(o);
  const { host, port } = listenAddress(api.address, 'api.address', 'app.toml');
  const server = new RestServer(restDeps(deps, rpcAddress), {
    host,
    port,
    // a TxRaw in base64 inside JSON, with room to spare: the largest block's bytes, doubled
    maxBodyBytes: 2 * o.maxBlockBytes + 4096,
    maxOpenConnections: api.maxOpenConnections,
    logger: log,
  });
  await server.start().catch((err) => {
    throw new ChainError(
      'LISTEN_FAILED',
      `the REST API cannot listen on ${host}:${port} ([api] address): ${errorMessage(err)}`,
    );
  });
  log.info({ address: server.url }, 'REST API listening');
  return server;
}

/** The gRPC server when `[grpc] enable`, listening. */
export async function startGrpc(
  o: ServiceOptions,
  deps: ConsensusRpcDeps,
  rpcAddress: () => string,
): Promise<GrpcServer | undefined> {
  const cfg = o.config.app.grpc;
  if (!cfg.enable) return undefined;
  const log = rpcLog(o);
  const { host, port } = listenAddress(cfg.address, 'grpc.address', 'app.toml');
  const server = new GrpcServer(grpcDeps(deps, rpcAddress), {
    host,
    port,
    logger: log,
    maxConnections: cfg.maxOpenConnections,
    idleTimeoutMs: cfg.idleTimeout,
  });
  await server.start().catch((err) => {
    throw new ChainError(
      'LISTEN_FAILED',
      `gRPC cannot listen on ${host}:${port} ([grpc] address): ${errorMessage(err)}`,
    );
  });
  log.info({ address: server.address }, 'gRPC listening');
  return server;
}

/** What is listening; a listener its config disables is absent. */
export interface ConsensusServices {
  consensusRpc: ConsensusRpcServer;
  metrics: MetricsServer | undefined;
  rest: RestServer | undefined;
  grpc: GrpcServer | undefined;
}

export type ServiceModules = Pick<
  ConsensusRpcSources,
  'chain' | 'blocks' | 'mempool' | 'cosmosPool' | 'submission' | 'sync' | 'queries'
> & {
  /** Network mode: CometBFT's RPC and blocks, and where it serves its own metrics. */
  upstream: (NonNullable<ConsensusRpcSources['upstream']> & { metricsUrl: string }) | undefined;
  threadMetrics?: MetricsModules['threadMetrics'];
};

/**
 * The consensus RPC, metrics, REST and gRPC, in that order under `lc`, all over one set of
 * consensus-RPC adapters.
 */
export async function openConsensusServices(
  lc: Lifecycle,
  o: NodeSetup,
  registry: Registry,
  m: ServiceModules,
): Promise<ConsensusServices> {
  const { config, genesis, logger } = o;
  const services: ServiceOptions = {
    config,
    chainId: genesis.chain_id,
    maxBlockBytes: Number(genesis.consensus_params.block.max_bytes),
    logger,
  };
  const { consensus, consensusRpc } = await lc.open(
    'consensus-rpc',
    async () => {
      const consensus = consensusRpcDeps({
        ...m,
        home: o.home,
        dataDir: o.dataDir,
        genesis,
        moniker: config.config.moniker,
        appVersion: APP_VERSION,
        logger,
      });
      return { consensus, consensusRpc: await startConsensusRpc(services, consensus) };
    },
    ({ consensusRpc }) => consensusRpc.stop(),
  );
  const { chain, mempool, cosmosPool, threadMetrics } = m;
  const metrics = await lc.open(
    'metrics',
    () =>
      startMetrics(
        services,
        registry,
        { chain, mempool, cosmosPool, consensus, dataDir: o.dataDir, threadMetrics },
        m.upstream?.metricsUrl,
      ),
    async (started) => {
      started?.unsubscribe();
      await started?.server.stop();
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
  return { consensusRpc, metrics: metrics?.server, rest, grpc };
}
