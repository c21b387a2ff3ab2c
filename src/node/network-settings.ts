/** Network mode's settings, mapped from chaind's configuration onto what src/cometbft/ takes. */
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import type { Genesis } from '../app/genesis.ts';
import type { CometEngineOptions } from '../cometbft/engine.ts';
import type { NodeConfig } from '../config/schema.ts';

/** What network mode needs beyond the embedded engine's options. */
export type NetworkSettings = Pick<CometEngineOptions, 'settings' | 'query' | 'onFatal' | 'snapshots'> & {
  /** `[consensus] cometbft-binary` (empty: the installed one). */
  binary: string;
};

export function networkSettings(
  o: { config: NodeConfig; genesis: Genesis },
  query: (req: RequestQuery) => Promise<ResponseQuery>,
  onFatal: (reason: string) => void,
): NetworkSettings {
  const cfg = o.config.config;
  return {
    binary: cfg.consensus.cometbftBinary,
    query,
    onFatal,
    snapshots: {
      interval: o.config.app.stateSync.snapshotInterval,
      keepRecent: o.config.app.stateSync.snapshotKeepRecent,
      chunkBytes: o.config.app.stateSync.snapshotChunkBytes,
    },
    settings: {
      moniker: cfg.moniker,
      logLevel: cfg.logLevel,
      metricsNamespace: cfg.instrumentation.namespace,
      p2p: {
        laddr: cfg.p2p.laddr,
        externalAddress: cfg.p2p.externalAddress,
        persistentPeers: cfg.p2p.persistentPeers,
        pex: cfg.p2p.pex,
        maxPacketMsgPayloadSize: cfg.p2p.maxPacketMsgPayloadSize,
        addrBookStrict: cfg.p2p.addrBookStrict,
        allowDuplicateIp: cfg.p2p.allowDuplicateIp,
      },
      mempool: {
        size: cfg.mempool.size,
        cacheSize: cfg.mempool.cacheSize,
        keepInvalidTxsInCache: cfg.mempool.keepInvalidTxsInCache,
        maxTxBytes: Number(o.genesis.consensus_params.block.max_bytes),
      },
      consensus: {
        timeoutCommitMs: cfg.consensus.timeoutCommit,
        timeoutProposeMs: cfg.consensus.timeoutPropose,
        createEmptyBlocks: cfg.consensus.createEmptyBlocks,
        createEmptyBlocksIntervalMs: cfg.consensus.createEmptyBlocksInterval,
      },
      statesync: {
        enable: cfg.statesync.enable,
        rpcServers: cfg.statesync.rpcServers,
        trustHeight: cfg.statesync.trustHeight,
        trustHash: cfg.statesync.trustHash,
        trustPeriodMs: cfg.statesync.trustPeriod,
        discoveryTimeMs: cfg.statesync.discoveryTime,
      },
    },
  };
}
