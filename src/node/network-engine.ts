/**
 * Network mode's engine: CometBFT decides blocks, this node is its ABCI++ application
 * (src/cometbft/). Transactions go to CometBFT's mempool, which checks them with this node's
 * admission (CheckTx) and gossips them to its peers; the queries CometBFT receives are answered as
 * the consensus RPC's abci_query answers them; and once it runs, CometBFT's own RPC is what the
 * Cosmos-facing listeners pass requests on to.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { RequestQuery, ResponseQuery } from 'cosmjs-types/tendermint/abci/types';
import { CosmosTxError } from '../app/cosmos-errors.ts';
import type { Chain } from '../chain/chain.ts';
import type { Engine, TxSubmission } from '../chain/engine.ts';
import type { EngineHealth } from '../chain/sync-status.ts';
import { resolveCometBinary } from '../cometbft/binary.ts';
import { engineBlock } from '../cometbft/block-json.ts';
import { CometEngine } from '../cometbft/engine.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { type AdmissionPools, mempoolErrorOf } from '../mempool/check-tx.ts';
import { type AbciQueryDeps, answerAbciQuery } from '../rpc/consensus/abci-query.ts';
import type { BlockView, UpstreamRpc } from '../rpc/consensus/types.ts';
import { APP_VERSION } from './consensus-services.ts';
import { networkSettings } from './network-settings.ts';
import type { NodeSetup } from './node-options.ts';

export class NetworkEngine implements Engine {
  readonly comet: CometEngine;
  /** Network mode has no embedded producer. */
  readonly producer = undefined;

  constructor(comet: CometEngine) {
    this.comet = comet;
  }

  get health(): EngineHealth {
    return this.comet.health;
  }

  start(): Promise<void> {
    return this.comet.start();
  }

  stop(): Promise<void> {
    return this.comet.stop();
  }
}

/** CometBFT over this node's chain and pools, and submissions through CometBFT's mempool. */
export function createNetworkEngine(
  o: NodeSetup,
  m: AdmissionPools & { chain: Chain },
  /** What CometBFT's ABCI Query is answered from. */
  queries: AbciQueryDeps,
  /** CometBFT exited, or the application cannot go on. */
  onFatal: (reason: string) => void,
): { engine: NetworkEngine; submission: TxSubmission } {
  const network = networkSettings(o, (q) => abciQuery(queries, q), onFatal);
  const comet = new CometEngine({
    ...network,
    home: o.home,
    dataDir: o.dataDir,
    binary: resolveCometBinary(network.binary, o.home),
    chain: m.chain,
    pools: { mempool: m.mempool, cosmosPool: m.cosmosPool },
    genesis: o.genesis,
    version: APP_VERSION,
    logger: o.logger,
  });
  return { engine: new NetworkEngine(comet), submission: networkTxSubmission(comet, m) };
}

/** Submissions through CometBFT's mempool, refused with the same errors as local admission. */
export function networkTxSubmission(comet: CometEngine, pools: AdmissionPools): TxSubmission {
  // CometBFT's broadcast answer has no gas_wanted; the admitting pool holds the tx by then
  return {
    submitEthereumTx: async (raw) => {
      const r = await comet.submit(wrapEthTransaction(raw));
      const hash = keccak_256(raw);
      if (r.code !== 0) {
        const refusal = mempoolErrorOf(r);
        // CometBFT's cache answers a mined tx sent again before the app sees it: say what geth says
        if (refusal.reason === 'already_known' && !pools.mempool.has(hash)) {
          const seen = await pools.mempool.seenRefusal(raw, hash);
          if (seen.reason === 'nonce_too_low') throw seen;
        }
        throw refusal;
      }
      return { hash, gasLimit: pools.mempool.get(hash)?.gasLimit ?? 0n };
    },
    submitCosmosTx: async (txRaw) => {
      const r = await comet.submit(txRaw);
      if (r.code !== 0) throw new CosmosTxError(r.code, r.log);
      return { hash: r.hash, gasLimit: pools.cosmosPool.get(r.hash)?.gasLimit ?? 0n };
    },
  };
}

/** CometBFT's ABCI Query, answered by the consensus RPC's abci_query over the same state. */
export async function abciQuery(deps: AbciQueryDeps, req: RequestQuery): Promise<ResponseQuery> {
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
    key: new Uint8Array(0),
    value: a.value ?? new Uint8Array(0),
    height: BigInt(a.height),
    codespace: a.codespace,
  };
}

/** What the Cosmos-facing listeners take from a running CometBFT. */
export interface EngineUpstream {
  /** The consensus RPC passes its routes on to CometBFT's. */
  rpc: UpstreamRpc;
  /** REST's and gRPC's block endpoints answer with CometBFT's block (the stored one is partial). */
  block(height: number): Promise<Omit<BlockView, 'size'> | undefined>;
  /** CometBFT's Prometheus series, merged into /metrics. */
  metricsUrl: string;
}

/** CometBFT's loopback RPC and metrics, which exist once the engine has started. */
export function engineUpstream(engine: NetworkEngine): EngineUpstream {
  const rpc = engine.comet.rpc;
  return {
    rpc: {
      get: (q) => rpc.get(q),
      post: (b) => rpc.post(b),
      websocketUrl: `${rpc.url.replace(/^http/, 'ws')}/websocket`,
    },
    block: (height) => engineBlock(rpc, height),
    metricsUrl: engine.comet.metricsUrl,
  };
}
