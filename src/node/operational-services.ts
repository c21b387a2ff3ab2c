/**
 * The node's operational interfaces as lifecycle services: the consensus RPC (`[rpc] laddr`) and the
 * Prometheus endpoint (`[instrumentation]`). They start after block production and read the modules
 * the earlier services built. Metrics live on one prom-client Registry with a `chain_id` label on
 * every series; each module defines its own metrics (chain/, consensus/, mempool/ metrics.ts).
 */
import { readFileSync } from 'node:fs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { StakingReader } from '../app/staking.ts';
import { recordChainMetrics } from '../chain/metrics.ts';
import { validatorAddress } from '../codec/index.ts';
import { parseListenAddress } from '../config/fields.ts';
import { recordConsensusMetrics } from '../producer/metrics.ts';
import { registerMempoolMetrics } from '../mempool/metrics.ts';
import { equalBytes } from '../primitives/bytes.ts';
import { maxPeerHeight, notCurrent } from '../rpc/consensus/routes-info.ts';
import { ConsensusRpcServer } from '../rpc/consensus/server.ts';
import type { ConsensusRpcDeps } from '../rpc/consensus/types.ts';
import { GrpcServer } from '../rpc/grpc/server.ts';
import { RestServer } from '../rpc/rest/server.ts';
import { ChainError, ConfigError, errorMessage } from '../util/errors.ts';
import { consensusRpcDeps } from './consensus-rpc-adapters.ts';
import { grpcDeps } from './grpc-adapters.ts';
import type { Service } from './lifecycle.ts';
import { MetricsServer } from './metrics-server.ts';
import type { ChainNode, NodeOptions } from './node.ts';
import { restDeps } from './rest-adapters.ts';

export interface OperationalHandles {
  /** Every metric of the node is registered here (the RPC dispatcher's too). */
  registry: Registry;
  consensusRpc?: ConsensusRpcServer;
  grpc?: GrpcServer;
  metrics?: MetricsServer;
  rest?: RestServer;
}

const handles = new WeakMap<ChainNode, OperationalHandles>();

/** The running servers of a node (their bound addresses, e.g. after listening on port 0). */
export function operationalHandles(node: ChainNode): OperationalHandles | undefined {
  return handles.get(node);
}

const APP_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

function listenAddress(value: string, key: string, file = 'config.toml'): { host: string; port: number } {
  const a = parseListenAddress(value);
  if (!a) throw new ConfigError(`${file}: ${key}: ${JSON.stringify(value)} is not a listen address`);
  return a;
}

/** Keyed by the chain a start of the node built, so a restarted node gets fresh adapters. */
const consensusDeps = new WeakMap<object, ConsensusRpcDeps>();

/**
 * The chain, stores and mempool exist only once the earlier services started: built on first use,
 * once per node, so the consensus RPC and the REST API read through the same adapters.
 */
function lazyConsensusDeps(opts: NodeOptions, node: ChainNode): () => ConsensusRpcDeps {
  return () => {
    let deps = consensusDeps.get(node.chain!);
    if (!deps) {
      deps = consensusRpcDeps({
        home: opts.home,
        dataDir: node.dataDir,
        genesis: opts.genesis,
        moniker: opts.config.config.moniker,
        appVersion: APP_VERSION,
        chain: node.chain!,
        blocks: node.blocks!,
        ss: node.ss!,
        mempool: node.mempool!,
        cosmosPool: node.cosmosPool!,
        logger: opts.logger,
        sync: () => node.syncStatus(),
      });
      const engine = node.cometEngine;
      if (engine) {
        deps.upstream = { get: (q) => engine.rpc.get(q), post: (b) => engine.rpc.post(b) };
        deps.submitter = { ...deps.submitter, submit: (raw) => engine.submit(raw) };
      }
      consensusDeps.set(node.chain!, deps);
    }
    return deps;
  };
}

/** The node's one set of consensus RPC dependencies (network mode's ABCI Query answers through it). */
export function consensusDepsOf(opts: NodeOptions, node: ChainNode): ConsensusRpcDeps {
  return lazyConsensusDeps(opts, node)();
}

/** A TxRaw in base64 inside JSON, with room to spare: the largest block's bytes, doubled. */
const restMaxBody = (opts: NodeOptions) => 2 * Number(opts.genesis.consensus_params.block.max_bytes) + 4096;

/**
 * The REST API (`[api] address`, served when `[api] enable`). Its own service so node.ts can run it
 * in its lifecycle; it shares the consensus RPC's adapters through rest-adapters.ts.
 */
export function restApiService(opts: NodeOptions, node: ChainNode): Service {
  const deps = lazyConsensusDeps(opts, node);
  const log = opts.logger.child({ module: 'rpc' });
  const api = opts.config.app.api;
  let server: RestServer | undefined;
  return {
    name: 'rest-api',
    start: async () => {
      if (!api.enable) return;
      const { host, port } = listenAddress(api.address, 'api.address', 'app.toml');
      // The consensus RPC's bound address once it listens (port 0 picks one), else the configured one.
      const rpcAddress = () => handles.get(node)?.consensusRpc?.url ?? opts.config.config.rpc.laddr;
      server = new RestServer(restDeps(deps(), rpcAddress), {
        host,
        port,
        maxBodyBytes: restMaxBody(opts),
        maxOpenConnections: api.maxOpenConnections,
        logger: log,
      });
      await server.start().catch((err) => {
        throw new ChainError(
          'LISTEN_FAILED',
          `the REST API cannot listen on ${host}:${port} ([api] address): ${errorMessage(err)}`,
        );
      });
      const h = handles.get(node) ?? { registry: node.metricsRegistry };
      h.rest = server;
      handles.set(node, h);
      log.info({ address: server.url }, 'REST API listening');
    },
    stop: async () => server?.stop(),
  };
}

/** The gRPC server (`[grpc] address`, served when `[grpc] enable`), over the same adapters. */
export function grpcService(opts: NodeOptions, node: ChainNode): Service {
  const deps = lazyConsensusDeps(opts, node);
  const log = opts.logger.child({ module: 'rpc' });
  const cfg = opts.config.app.grpc;
  let server: GrpcServer | undefined;
  return {
    name: 'grpc',
    start: async () => {
      if (!cfg.enable) return;
      const { host, port } = listenAddress(cfg.address, 'grpc.address', 'app.toml');
      const rpcAddress = () => handles.get(node)?.consensusRpc?.url ?? opts.config.config.rpc.laddr;
      const chain = node.chain!;
      const sim = {
        state: () => chain.state,
        chainId: opts.genesis.chain_id,
        maxBlockGas: () => chain.gasLimit,
      };
      server = new GrpcServer(grpcDeps(deps(), rpcAddress, sim), {
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
      const h = handles.get(node) ?? { registry: node.metricsRegistry };
      h.grpc = server;
      handles.set(node, h);
      log.info({ address: server.address }, 'gRPC listening');
    },
    stop: async () => server?.stop(),
  };
}

export function operationalServices(
  opts: NodeOptions,
  node: ChainNode,
  registry = new Registry(),
): Service[] {
  const h: OperationalHandles = { ...handles.get(node), registry };
  handles.set(node, h);
  const rpcDeps = lazyConsensusDeps(opts, node);
  const log = opts.logger.child({ module: 'rpc' });
  const rpc = opts.config.config.rpc;
  const instr = opts.config.config.instrumentation;
  const unsubscribe: (() => void)[] = [];

  const consensusRpc: Service = {
    name: 'consensus-rpc',
    start: async () => {
      const { host, port } = listenAddress(rpc.laddr, 'rpc.laddr');
      const server = new ConsensusRpcServer(rpcDeps(), {
        host,
        port,
        maxBodyBytes: rpc.maxBodyBytes,
        corsAllowedOrigins: rpc.corsAllowedOrigins,
        lagThreshold: rpc.lagThreshold,
        maxOpenConnections: rpc.maxOpenConnections,
        logger: log,
      });
      await server.start();
      h.consensusRpc = server;
      log.info({ address: server.url }, 'consensus RPC listening');
    },
    stop: async () => h.consensusRpc?.stop(),
  };

  const metrics: Service = {
    name: 'metrics',
    start: async () => {
      if (!instr.prometheus) return;
      const chain = node.chain!;
      const d = rpcDeps();
      const ns = instr.namespace;
      registry.setDefaultLabels({ chain_id: opts.genesis.chain_id });
      collectDefaultMetrics({ register: registry });
      unsubscribe.push(recordChainMetrics(registry, ns, chain));
      const mempool = node.mempool!;
      const cosmosPool = node.cosmosPool!;
      registerMempoolMetrics(registry, ns, {
        size: () => mempool.size + cosmosPool.size,
        evmPending: () => mempool.pending(),
        evmQueued: () => mempool.queued(),
      });
      const set = d.validators.validators(chain.latestHeight).map((v) => v.address);
      unsubscribe.push(
        recordConsensusMetrics(registry, ns, {
          onBlock: (l) => chain.onBlock(l),
          validatorSet: () => set,
          validatorStatuses: () =>
            new StakingReader(chain.state).validators().map((v) => {
              const address = validatorAddress(new Uint8Array(Buffer.from(v.consensus_pubkey.key, 'base64')));
              const inSet = set.some((a) => equalBytes(a, address));
              return { address, active: v.status === 'BOND_STATUS_BONDED' && !v.jailed && inSet };
            }),
          // As /lag_status answers 200: making progress, not catching up, within the lag threshold.
          atNetworkHeight: () => {
            const sync = d.sync();
            if (notCurrent(sync)) return false;
            const own = chain.latestHeight;
            return Math.max(maxPeerHeight(d.network, own), sync.bestKnownHeight) - own <= rpc.lagThreshold;
          },
        }),
      );
      const { host, port } = listenAddress(
        instr.prometheusListenAddr,
        'instrumentation.prometheus-listen-addr',
      );
      const engine = node.cometEngine;
      const server = new MetricsServer(
        registry,
        host,
        port,
        log,
        instr.maxOpenConnections,
        engine
          ? {
              namespace: ns,
              scrape: async () =>
                (await fetch(engine.metricsUrl, { signal: AbortSignal.timeout(2_000) })).text(),
            }
          : undefined,
      );
      await server.start();
      h.metrics = server;
      const a = server.address;
      log.info({ address: `${a.host}:${a.port}` }, 'metrics listening');
    },
    stop: async () => {
      for (const off of unsubscribe.splice(0)) off();
      await h.metrics?.stop();
    },
  };

  return [consensusRpc, metrics];
}
