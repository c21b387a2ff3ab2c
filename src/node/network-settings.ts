/** Network mode's settings, mapped from chaind's configuration onto what src/cometbft/ takes. */
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { answerAbciQuery } from '../rpc/consensus/abci-query.ts';
import type { ConsensusRpcDeps } from '../rpc/consensus/types.ts';
import type { NetworkSettings } from './engine.ts';
import type { Genesis } from '../app/genesis.ts';
import type { NodeConfig } from '../config/schema.ts';

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
      },
    },
  };
}

/** CometBFT's ABCI Query, answered by the consensus RPC's abci_query over the same state. */
export async function abciQuery(
  deps: ConsensusRpcDeps | undefined,
  req: RequestQuery,
): Promise<ResponseQuery> {
  const empty = new Uint8Array(0);
  if (!deps)
    return {
      code: 1,
      log: 'the node is starting',
      info: '',
      index: 0n,
      key: empty,
      value: empty,
      height: 0n,
      codespace: 'chaind',
    };
  const a = await answerAbciQuery(deps, {
    path: req.path,
    data: req.data,
    height: Number(req.height),
    prove: req.prove,
  });
  return {
    code: a.code,
    log: a.log,
    info: '',
    index: 0n,
    key: empty,
    value: a.value ?? empty,
    height: BigInt(a.height),
    codespace: a.codespace,
  };
}
