/**
 * The engine that decides this node's blocks, chosen once by `[consensus] engine`: the embedded
 * producer (embedded-engine.ts) or CometBFT (network-engine.ts). With it come where the RPCs submit
 * transactions and, in network mode, CometBFT's own RPC, which the Cosmos-facing listeners defer to.
 * It starts after the chain and the mempools and stops before them.
 */
import type { Chain } from '../chain/chain.ts';
import type { TxSubmission } from '../chain/engine.ts';
import type { SyncStatus } from '../chain/sync-status.ts';
import type { AdmissionPools } from '../mempool/check-tx.ts';
import type { AbciQueryDeps } from '../rpc/consensus/abci-query.ts';
import { createEmbeddedEngine, type EmbeddedEngine } from './embedded-engine.ts';
import type { Lifecycle } from './lifecycle.ts';
import { createNetworkEngine, type EngineUpstream, engineUpstream, NetworkEngine } from './network-engine.ts';
import type { NodeSetup } from './node-options.ts';

/** Every engine this node can run. */
export type NodeEngine = EmbeddedEngine | NetworkEngine;

export interface RunningEngine {
  engine: NodeEngine;
  /** Where every RPC submits transactions. */
  submission: TxSubmission;
  /** The engine's view of progress, which every health signal reads. */
  sync: () => SyncStatus;
  /** Network mode: what the Cosmos-facing listeners take from CometBFT. */
  upstream: EngineUpstream | undefined;
}

/** What only network mode needs: CometBFT asks this node's queries, and may stop the node. */
export interface NetworkHooks {
  queries: AbciQueryDeps;
  onFatal: (reason: string) => void;
}

/** The configured engine, started under `lc` (which stops it). */
export async function openEngine(
  lc: Lifecycle,
  o: NodeSetup,
  m: AdmissionPools & { chain: Chain },
  network: NetworkHooks,
): Promise<RunningEngine> {
  const consensus = o.config.config.consensus;
  const { engine, submission } = await lc.open(
    'engine',
    async () => {
      const built =
        consensus.engine === 'cometbft'
          ? createNetworkEngine(o, m, network.queries, network.onFatal)
          : createEmbeddedEngine({ ...o, consensus }, m);
      await built.engine.start();
      return built;
    },
    ({ engine }) => engine.stop(),
  );
  return {
    engine,
    submission,
    sync: () => chainSyncStatus(m.chain, engine),
    upstream: engine instanceof NetworkEngine ? engineUpstream(engine) : undefined,
  };
}

/**
 * The engine's view of progress, unless the chain commits no more blocks (its disk filled, or a
 * block's write failed): then halted, for that reason, whatever the engine says.
 */
export function chainSyncStatus(chain: Chain, engine: NodeEngine): SyncStatus {
  const s = engine.health.syncStatus();
  const reason = chain.haltReason;
  return reason ? { ...s, catchingUp: false, halted: true, reason } : s;
}
