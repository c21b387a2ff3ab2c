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
import { recordConsensusMetrics } from '../consensus/metrics.ts';
import { registerMempoolMetrics } from '../mempool/metrics.ts';
import { equalBytes } from '../primitives/bytes.ts';
import { maxPeerHeight } from '../rpc/consensus/routes-info.ts';
import { ConsensusRpcServer } from '../rpc/consensus/server.ts';
import type { ConsensusRpcDeps } from '../rpc/consensus/types.ts';
import { ConfigError } from '../util/errors.ts';
import { consensusRpcDeps } from './consensus-rpc-adapters.ts';
import type { Service } from './lifecycle.ts';
import { MetricsServer } from './metrics-server.ts';
import type { ChainNode, NodeOptions } from './node.ts';

export interface OperationalHandles {
  /** Every metric of the node is registered here (the RPC dispatcher's too). */
  registry: Registry;
  consensusRpc?: ConsensusRpcServer;
  metrics?: MetricsServer;
}

const handles = new WeakMap<ChainNode, OperationalHandles>();

/** The running servers of a node (their bound addresses, e.g. after listening on port 0). */
export function operationalHandles(node: ChainNode): OperationalHandles | undefined {
  return handles.get(node);
}

const APP_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

function listenAddress(value: string, key: string): { host: string; port: number } {
  const a = parseListenAddress(value);
  if (!a) throw new ConfigError(`config.toml: ${key}: ${JSON.stringify(value)} is not a listen address`);
  return a;
}

export function operationalServices(
  opts: NodeOptions,
  node: ChainNode,
  registry = new Registry(),
): Service[] {
  const h: OperationalHandles = { registry };
  handles.set(node, h);
  let deps: ConsensusRpcDeps | undefined;
  // Built on first use: the chain, stores and mempool exist only once the earlier services started.
  const rpcDeps = () =>
    (deps ??= consensusRpcDeps({
      home: opts.home,
      dataDir: node.dataDir,
      genesis: opts.genesis,
      moniker: opts.config.config.moniker,
      p2pListenAddr: opts.config.config.p2p.laddr,
      appVersion: APP_VERSION,
      chain: node.chain!,
      blocks: node.blocks!,
      ss: node.ss!,
      mempool: node.mempool!,
      cosmosPool: node.cosmosPool!,
      logger: opts.logger,
    }));
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
          atNetworkHeight: () => {
            const own = chain.latestHeight;
            // No catching-up state exists yet: a single validator produces the network's height.
            return maxPeerHeight(d.network, own) - own <= rpc.lagThreshold;
          },
        }),
      );
      const { host, port } = listenAddress(
        instr.prometheusListenAddr,
        'instrumentation.prometheus-listen-addr',
      );
      const server = new MetricsServer(registry, host, port, log);
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
